import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type Model, tool } from "glassloop";
import { FunctionModel, type RecordedRequest } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { dataset } from "./dataset.js";
import { evaluate } from "./evaluate.js";
import type { EvalEvent } from "./events.js";
import { formatReport } from "./report-table.js";
import { readResult } from "./result-file.js";
import { contains, exact } from "./scorers/text.js";
import { toolsCalled } from "./scorers/trajectory.js";

const lastUser = (r: RecordedRequest) => {
  const m = r.messages.findLast((x) => x.role === "user");
  return m?.role === "user" ? m.content : "";
};
const agentOf = ({ model }: { model?: Model }) => new Agent({ model: model as Model });
const cases = dataset("numbers", [
  { id: "one", input: "say 1", expected: "1" },
  { id: "two", input: "say 2", expected: "2" },
  { id: "three", input: "say 3", expected: "3" },
]);

describe("evaluate", () => {
  it("repeats each case, scores every trial and reports pass rate, pass@k and intervals", async () => {
    // Case "two" answers right on its first trial only; "three" never.
    let twos = 0;
    const model = new FunctionModel((r) => {
      const asked = lastUser(r).slice(-1);
      if (asked === "2") return { text: twos++ === 0 ? "2" : "two" };
      return { text: asked === "3" ? "III" : asked };
    });
    const result = await evaluate({ agent: agentOf, model, dataset: cases, scorers: [exact()], repeat: 3 });
    expect(result.cases.map((c) => c.passRate)).toEqual([1, 1 / 3, 0]);
    const atK = result.cases[1]?.passAtK ?? [];
    expect(atK).toHaveLength(3);
    for (const [i, p] of [1 / 3, 2 / 3, 1].entries()) expect(atK[i]).toBeCloseTo(p, 12);
    expect(result.summary.passed).toBe(4);
    expect(result.summary.scored).toBe(9);
    expect(result.summary.passRate.method).toBe("wilson");
    expect(result.summary.passRate.lo).toBeCloseTo(0.1888, 3);
    expect(result.summary.passRate.hi).toBeCloseTo(0.7334, 3);
    expect(result.summary.passAtK[2]).toBeCloseTo(2 / 3, 10);
    const report = formatReport(result);
    expect(report).toMatch(
      /pass rate {3}44% \[19%, 73%\] {2}\(4\/9 trials; every scorer passes; 95% Wilson\)/,
    );
    // A test double's answers cost nothing, and the table says so.
    expect(report).toMatch(/^two +1\/3 +0\.33 +\$0\.00000 +\d+ ms$/m);
    expect(report).toMatch(/pass@k {6}@1 44% {2}@2 56% {2}@3 67%/);
  });

  it("combines several scorers by the declared rule", async () => {
    const model = new FunctionModel(() => ({ text: "the answer is 2" }));
    const base = { agent: agentOf, model, dataset: dataset("d", [{ input: "say 2", expected: "2" }]) };
    const both = [exact<string, string>(), contains<string, string>()];
    const all = await evaluate({ ...base, scorers: both });
    expect(all.cases[0]?.trials[0]).toMatchObject({ pass: false, score: 0 });
    const any = await evaluate({ ...base, scorers: both, combine: { rule: "any" } });
    expect(any.cases[0]?.trials[0]).toMatchObject({ pass: true, score: 1 });
    const weighted = await evaluate({
      ...base,
      scorers: both,
      combine: { rule: "mean", threshold: 0.7, weights: { exact: 1, contains: 3 } },
    });
    expect(weighted.cases[0]?.trials[0]).toMatchObject({ pass: true, score: 0.75 });
    await expect(
      evaluate({ ...base, scorers: both, combine: { rule: "mean", threshold: 0.5, weights: { typo: 1 } } }),
    ).rejects.toThrow(/a weight for "typo", which is no scorer's name/);
  });

  it("never spends past the eval's maxCostUsd: trials that cannot be paid for are skipped", async () => {
    // $1 per million tokens; each trial spends 1,010 tokens (about $0.001), within its worst case
    // (every request byte an input token, plus 1,024 output tokens).
    const model = new FunctionModel(() => ({ text: "ok", usage: { inputTokens: 10, outputTokens: 1000 } }), {
      price: { inputPerMTok: 1, outputPerMTok: 1 },
    });
    const many = dataset(
      "many",
      Array.from({ length: 12 }, (_, i) => ({ input: `case ${i}`, expected: "ok" })),
    );
    const result = await evaluate({
      agent: agentOf,
      model,
      dataset: many,
      scorers: [exact()],
      concurrency: 3,
      limits: { maxCostUsd: 0.01 },
    });
    const spent = result.cases.flatMap((c) => c.trials).reduce((s, t) => s + (t.costUsd ?? 0), 0);
    expect(spent).toBeLessThanOrEqual(0.01);
    expect(spent).toBeGreaterThan(0.005);
    expect(result.stopped).toBe("budget");
    const statuses = result.cases.flatMap((c) => c.trials.map((t) => t.status));
    // The trials it could not pay for ran to no score: the one stopped aborted, the rest skipped.
    expect(statuses.filter((s) => s === "aborted" || s === "skipped").length).toBeGreaterThan(0);
    expect(result.summary.scored).toBeLessThan(12);
    expect(formatReport(result)).toMatch(/stopped early \(the eval's maxCostUsd was reached\)/);
  });

  it("a per-case cost limit stops that trial only, as a budget failure", async () => {
    const model = new FunctionModel(
      () => ({ text: "ok", usage: { inputTokens: 1000, outputTokens: 1000 } }),
      {
        price: { inputPerMTok: 1, outputPerMTok: 1 },
      },
    );
    const result = await evaluate({
      agent: agentOf,
      model,
      dataset: dataset("d", [
        { input: "a", expected: "ok" },
        { input: "b", expected: "ok", limits: { maxCostUsd: 0.0001 } },
      ]),
      scorers: [exact()],
      limits: { perCase: { maxCostUsd: 1 } },
    });
    expect(result.cases.map((c) => c.trials[0]?.status)).toEqual(["ok", "budget_exceeded"]);
    expect(result.cases[1]?.trials[0]?.error?.code).toBe("eval_budget");
    expect(result.stopped).toBeUndefined();
  });

  it("keeps at most `concurrency` trials running and, when aborted, keeps what finished", async () => {
    let running = 0;
    let most = 0;
    const model = new FunctionModel(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 20));
      running--;
      return { text: "ok" };
    });
    const controller = new AbortController();
    const events: EvalEvent[] = [];
    const many = dataset(
      "many",
      Array.from({ length: 20 }, (_, i) => ({ input: `case ${i}`, expected: "ok" })),
    );
    const result = await evaluate({
      agent: agentOf,
      model,
      dataset: many,
      scorers: [exact()],
      concurrency: 2,
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e);
        if (e.type === "trial_end" && e.done === 4) controller.abort(new Error("Ctrl-C"));
      },
    });
    expect(most).toBe(2);
    expect(result.stopped).toBe("aborted");
    const finished = result.cases.flatMap((c) => c.trials).filter((t) => t.status === "ok");
    expect(finished.length).toBeGreaterThanOrEqual(4);
    expect(finished.length).toBeLessThan(20);
    expect(result.summary.scored).toBe(finished.length);
    expect(result.summary.passed).toBe(finished.length);
    expect(events.at(-1)?.type).toBe("eval_end");
  });

  it("traces every trial in the trace format and writes a result that links to them", async () => {
    const add = tool({
      name: "add",
      description: "Adds two numbers.",
      input: z.object({ a: z.number(), b: z.number() }),
      run: ({ a, b }) => a + b,
    });
    const model = new FunctionModel((r) =>
      r.messages.some((m) => m.role === "tool")
        ? { text: "5" }
        : { toolCalls: [{ name: "add", args: { a: 2, b: 3 } }] },
    );
    const outDir = mkdtempSync(join(tmpdir(), "glassloop-eval-"));
    const result = await evaluate({
      agent: ({ model: m }) => new Agent({ model: m as Model, tools: [add] }),
      model,
      dataset: dataset("sum", [{ id: "2+3", input: "2 + 3?", expected: "5" }]),
      scorers: [exact(), toolsCalled([{ name: "add", args: { a: 2, b: 3 } }])],
      outDir,
    });
    const trial = result.cases[0]?.trials[0];
    expect(trial).toMatchObject({ pass: true, steps: 2, toolCalls: ["add"], trace: "traces/2_3.r1.jsonl" });
    const lines = readFileSync(join(outDir, trial?.trace ?? ""), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({
      type: "trace_header",
      format: "glassloop-trace",
      runId: trial?.runIds[0],
    });
    expect(lines.filter((l) => l.type === "model_request")).toHaveLength(2);
    expect(existsSync(join(outDir, "result.json"))).toBe(true);
    expect(readResult(outDir).result.cases[0]?.trials[0]?.runIds).toEqual(trial?.runIds);
    // A second eval into the same directory would append to these traces: refused.
    await expect(
      evaluate({ agent: agentOf, model, dataset: cases, scorers: [exact()], outDir }),
    ).rejects.toThrow(/already holds an eval/);
  });
});
