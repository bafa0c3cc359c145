import { Agent, type Model, tool } from "glassloop";
import { EvalReplayError, replayEval } from "glassloop/evals";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  lookupTools,
  main,
  mathTools,
  measure,
  RECORDINGS,
  ROUTING,
  routed,
  singleAgent,
} from "../../examples/routing-experiment.js";

describe("examples/routing-experiment.ts as an eval", () => {
  it("replays both recorded set-ups offline: every request and score as recorded (a CI regression test)", async () => {
    const single = await replayEval(singleAgent, `${RECORDINGS}/single`);
    const router = await replayEval(routed, `${RECORDINGS}/router`);
    const routing = (r: typeof single) => r.summary.scorers.find((s) => s.scorer === "routing");
    // The keyword baseline's numbers, pinned: a harness change that moves them fails here.
    expect(routing(single)?.passRate.value).toBe(1);
    expect(routing(router)?.passRate.value).toBe(0.8);
    const missed = router.cases.filter((c) => !c.trials[0]?.pass).map((c) => c.id);
    expect(missed).toEqual(["dune", "forecast"]);
    expect(router.cases.find((c) => c.id === "dune")?.trials[0]?.scores[0]?.reason).toBe(
      "first call transfer_to_math (math), expected lookup",
    );
  });

  it("fails at the first case whose request changed, with the diff, when a tool description changes", async () => {
    const [first, ...rest] = mathTools;
    const reworded = tool({
      name: "calculate",
      description: "Do arithmetic.",
      input: z.object({ query: z.string().describe("The expression") }),
      run: ({ query }) => `calculated ${query}`,
    });
    expect(first?.name).toBe("calculate");
    const changed = {
      ...singleAgent,
      agent: ({ model }: { model?: Model }) =>
        new Agent({
          model: model as Model,
          tools: [reworded, ...rest, ...lookupTools],
          limits: { maxSteps: 2 },
        }),
    };
    const error = await replayEval(changed, `${RECORDINGS}/single`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EvalReplayError);
    const e = error as EvalReplayError;
    expect(e.caseId).toBe(ROUTING.cases[0]?.id);
    expect(e.kind).toBe("request");
    expect(e.message).toContain(
      'case "multiply" (repeat 1): the agent\'s request differs from the recording at model call 1, tools[0].description',
    );
    expect(e.message).toContain(
      '- recorded: "Evaluate an arithmetic expression: add, multiply, divide numbers."',
    );
    expect(e.message).toContain('+ now:      "Do arithmetic."');
  });

  it("runs live against any model: here the keyword stand-in, unrecorded", async () => {
    const { single, router } = await measure({});
    expect(single.summary.scored).toBe(10);
    expect(router.summary.scored).toBe(10);
    expect(router.cases.map((c) => c.trials[0]?.pass)).toEqual(
      (await replayEval(routed, `${RECORDINGS}/router`)).cases.map((c) => c.trials[0]?.pass),
    );
  });

  it("says plainly that the offline numbers are no language model's, then prints both reports and the paired test", async () => {
    const lines: string[] = [];
    expect(await main([], (l) => lines.push(l))).toBe(0);
    const out = lines.join("\n");
    expect(lines[0]).toMatch(/not a language model/);
    expect(out).toMatch(/^eval routing: one agent, six tools/m);
    expect(out).toMatch(/^dune +FAIL +✗ +✗/m);
    expect(out).toMatch(/McNemar exact p = 0\.500 \(0 fail→pass, 2 pass→fail\)/);
    expect(lines.at(-2)).toMatch(
      /^one agent, six tools: +100% right tool family \[72%, 100%\] \(10 requests\)$/,
    );
    expect(lines.at(-1)).toMatch(/^router over two specialists: +80% right specialist \[49%, 94%\]$/);
  });
});
