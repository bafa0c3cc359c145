import { Agent, ConfigError } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { dataset } from "./dataset.js";
import { evaluate } from "./evaluate.js";
import { formatReport } from "./report-table.js";
import { judge } from "./scorers/judge.js";
import { exact } from "./scorers/text.js";

const PRICE = { inputPerMTok: 1000, outputPerMTok: 1000 }; // $0.001 per token
const cases = (n: number) =>
  dataset(
    "many",
    Array.from({ length: n }, (_, i) => ({ id: `c${i}`, input: `case ${i}`, expected: "ok" })),
  );

describe("the eval's money (docs/evals.md §5)", () => {
  it("a trial whose judgment the eval's maxCostUsd cannot pay for is aborted, and the eval stops with budget", async () => {
    // The agent's answers are free; each judgment's worst case (request bytes + 512 output tokens at
    // $0.001) is over half a dollar, far past the eval's $0.05: no trial can be judged.
    const agent = () => new Agent({ model: new ScriptedModel([{ text: "ok" }]) });
    const judgeModel = new ScriptedModel([], { price: PRICE, id: "scripted:judge" });
    const result = await evaluate({
      agent,
      dataset: cases(6),
      scorers: [judge({ rubric: "Says ok.", model: judgeModel })],
      limits: { maxCostUsd: 0.05 },
      concurrency: 1,
    });
    expect(judgeModel.requests).toHaveLength(0);
    expect(result.stopped).toBe("budget");
    const trials = result.cases.flatMap((c) => c.trials);
    expect(trials[0]?.status).toBe("aborted");
    expect(trials[0]?.error?.code).toBe("eval_budget");
    expect(trials[0]?.error?.message).toMatch(/^not judged: Not calling the model/);
    // The eval stopped there instead of running trials it could not judge.
    expect(trials.slice(1).map((t) => t.status)).toEqual(Array(5).fill("skipped"));
    expect(result.summary.scored).toBe(0);
    // The table names the trials as result.json does.
    const report = formatReport(result);
    expect(report).toMatch(/^c0 +aborted/m);
    expect(report).toMatch(/^c1 +skipped/m);
  });

  it("shares the free money among the free slots, not among all of `concurrency`", async () => {
    const allotments: number[] = [];
    const release: (() => void)[] = [];
    const subject = () => ({
      run: async (_input: string, options: { limits?: { maxCostUsd?: number } }) => {
        allotments.push(options.limits?.maxCostUsd ?? Number.NaN);
        await new Promise<void>((done) => release.push(done));
        return { runId: "run_x", output: "ok" };
      },
    });
    const running = evaluate({
      agent: subject,
      dataset: cases(4),
      scorers: [exact()],
      limits: { maxCostUsd: 1 },
      concurrency: 4,
    });
    while (allotments.length < 4) await new Promise((r) => setTimeout(r, 1));
    // Four trials at once, each with a quarter: what the others hold is set aside, not shared again.
    expect(allotments.map((a) => a.toFixed(4))).toEqual(["0.2500", "0.2500", "0.2500", "0.2500"]);
    for (const done of release) done();
    const result = await running;
    expect(result.stopped).toBeUndefined();
  });

  it("a run that cannot start is a configuration error of the eval, not a scored failure", async () => {
    const agent = () => new Agent({ model: "openai:gpt-4o-mini" });
    await expect(
      evaluate({
        agent,
        dataset: cases(3),
        scorers: [exact()],
        env: {},
      }),
    ).rejects.toThrow(ConfigError);
  });
});
