import { Agent, type AgentEvent, type RunUsage, tool } from "glassloop";
import { costOf } from "glassloop/models";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ofType } from "../helpers/core.js";

const seen: RunUsage[] = [];
const probe = tool({
  name: "probe",
  description: "d",
  input: z.object({ n: z.number() }),
  run: ({ n }, { usage }) => {
    seen.push(usage);
    return n;
  },
});
const script = () => [
  {
    toolCalls: [
      { name: "probe", args: { n: 1 } },
      { name: "probe", args: { n: 2 } },
    ],
    usage: { inputTokens: 1_000, outputTokens: 100, cachedInputTokens: 400 },
  },
  { toolCalls: [{ name: "probe", args: { n: 3 } }], usage: { inputTokens: 1_200, outputTokens: 50 } },
  { text: "3", usage: { inputTokens: 1_300, outputTokens: 10, cachedInputTokens: 1_000 } },
];
const price = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 };

describe("usage", () => {
  it("is reported per step and in total", async () => {
    seen.length = 0;
    const events: AgentEvent[] = [];
    const result = await new Agent({
      model: new ScriptedModel(script(), { price: null }),
      tools: [probe],
    }).run("go", {
      onEvent: (e) => events.push(e),
    });
    const { usage } = result;
    expect(usage).toMatchObject({
      requests: 3,
      inputTokens: 3_500,
      outputTokens: 160,
      cachedInputTokens: 1_400,
      toolCalls: 3,
    });
    expect(usage.costUsd).toBeUndefined();
    expect("costUsd" in usage).toBe(false);
    expect(usage.steps.map(({ durationMs: _d, ...rest }) => rest)).toEqual([
      { step: 1, inputTokens: 1_000, outputTokens: 100, cachedInputTokens: 400, toolCalls: 2 },
      { step: 2, inputTokens: 1_200, outputTokens: 50, cachedInputTokens: 0, toolCalls: 1 },
      { step: 3, inputTokens: 1_300, outputTokens: 10, cachedInputTokens: 1_000, toolCalls: 0 },
    ]);
    for (const step of usage.steps) expect(step.durationMs).toBeGreaterThanOrEqual(0);
    const stepTotal = usage.steps.reduce((sum, s) => sum + s.durationMs, 0);
    expect(usage.durationMs).toBeGreaterThanOrEqual(Math.floor(stepTotal));
    // Step durations match the step_end events.
    expect(ofType(events, "step_end").map((e) => e.durationMs)).toEqual(usage.steps.map((s) => s.durationMs));
    // run_end carries the same usage.
    const end = ofType(events, "run_end")[0];
    expect({ ...end?.usage, durationMs: 0 }).toEqual({ ...usage, durationMs: 0 });
  });

  it("includes cost per step and in total when the model's price is known (cached tokens priced apart)", async () => {
    const result = await new Agent({ model: new ScriptedModel(script(), { price }), tools: [probe] }).run(
      "go",
    );
    const expected = [
      (600 * 3 + 400 * 0.3 + 100 * 15) / 1e6,
      (1_200 * 3 + 50 * 15) / 1e6,
      (300 * 3 + 1_000 * 0.3 + 10 * 15) / 1e6,
    ];
    for (const [i, step] of result.usage.steps.entries()) {
      expect(step.costUsd).toBeCloseTo(expected[i] ?? Number.NaN, 12);
    }
    expect(result.usage.costUsd).toBeCloseTo(
      expected.reduce((a, b) => a + b, 0),
      12,
    );
  });

  it("prices cached tokens at the input price when no cached price is given", () => {
    const usage = { inputTokens: 1_000, outputTokens: 0, cachedInputTokens: 500 };
    expect(costOf(usage, { inputPerMTok: 2, outputPerMTok: 8 })).toBeCloseTo(0.002, 12);
    expect(costOf(usage, { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 })).toBeCloseTo(
      (500 * 2 + 500 * 0.5) / 1e6,
      12,
    );
  });

  it("shows tools the usage so far", async () => {
    seen.length = 0;
    await new Agent({
      model: new ScriptedModel(script()),
      tools: [probe],
      environment: { concurrency: 1 },
    }).run("go");
    expect(seen.map((u) => [u.requests, u.toolCalls])).toEqual([
      [1, 1],
      [1, 2],
      [2, 3],
    ]);
  });

  it("is independent per run and a snapshot, not a live object", async () => {
    const agent = new Agent({ model: new ScriptedModel([{ text: "a" }, { text: "b" }]) });
    const first = await agent.run("1");
    const second = await agent.run("2");
    expect(first.usage.requests).toBe(1);
    expect(second.usage.requests).toBe(1);
    expect(first.usage.steps).toHaveLength(1);
  });

  it("is carried by a failed run", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "probe", args: { n: 1 } }], usage: { inputTokens: 10, outputTokens: 5 } },
      { error: "down" },
    ]);
    const error = await new Agent({ model, tools: [probe] }).run("go").catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "model_error",
      // The failed second request counts too.
      usage: { requests: 2, inputTokens: 10, toolCalls: 1 },
    });
  });
});
