import { Agent, ConfigError } from "glassloop";
import { modelEvaluator } from "glassloop/multi";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";

const PRICE = { inputPerMTok: 1_000, outputPerMTok: 1_000 };
const unpriced = () => new ScriptedModel([{ text: "free" }], { id: "scripted:unpriced", price: null });
const priced = (script: ConstructorParameters<typeof ScriptedModel>[0] = [{ text: "ok" }]) =>
  new ScriptedModel(script, { price: PRICE });

describe("maxCostUsd needs a price for every model of the run, sub-agents included", () => {
  it("a top-level agent without a price under maxCostUsd is a ConfigError (the rule sub-agents follow)", () => {
    expect(() => new Agent({ model: unpriced(), limits: { maxCostUsd: 1 } })).toThrowError(ConfigError);
  });

  it("a sub-agent whose model has no price is refused under the parent's maxCostUsd, at construction", () => {
    const child = new Agent({ name: "helper", model: unpriced() });
    const make = () =>
      new Agent({
        model: priced(),
        tools: [child.asTool({ name: "ask_helper", description: "Asks." })],
        limits: { maxCostUsd: 1 },
      });
    expect(make).toThrowError(ConfigError);
    expect(make).toThrowError(
      'limits.maxCostUsd is set but model "scripted:unpriced" (sub-agent tool "ask_helper") has no known price; give the model a price or drop the limit',
    );
  });

  it("and when the dollar limit comes with the run, before any model call", async () => {
    const child = new Agent({ model: unpriced() });
    const parentModel = priced();
    const parent = new Agent({
      model: parentModel,
      tools: [child.asTool({ name: "ask", description: "Asks." })],
    });
    await expect(parent.run("go", { limits: { maxCostUsd: 1 } })).rejects.toBeInstanceOf(ConfigError);
    expect(parentModel.requests).toHaveLength(0);
  });

  it("a sub-agent's own sub-agent without a price is found too", () => {
    const grandchild = new Agent({ model: unpriced() });
    const child = new Agent({
      model: priced(),
      tools: [grandchild.asTool({ name: "deeper", description: "Asks deeper." })],
    });
    expect(
      () =>
        new Agent({
          model: priced(),
          tools: [child.asTool({ name: "ask", description: "Asks." })],
          limits: { maxCostUsd: 1 },
        }),
    ).toThrowError(/"scripted:unpriced" \(sub-agent tool "ask" > "deeper"\)/);
  });

  it("a model evaluator without a price is refused under maxCostUsd", () => {
    expect(
      () =>
        new Agent({
          model: priced(),
          reflect: { evaluator: modelEvaluator(unpriced()) },
          limits: { maxCostUsd: 1 },
        }),
    ).toThrowError(/"scripted:unpriced" \(evaluator\) has no known price/);
  });

  it("a priced sub-agent runs under the parent's remaining dollars and its cost rolls up", async () => {
    const childModel = priced([{ text: "answer", usage: { inputTokens: 100, outputTokens: 10 } }]);
    const child = new Agent({ model: childModel });
    const parent = new Agent({
      model: priced([
        { toolCalls: [{ name: "ask", args: { input: "q" } }], usage: { inputTokens: 10, outputTokens: 1 } },
        { text: "done", usage: { inputTokens: 10, outputTokens: 1 } },
      ]),
      tools: [child.asTool({ name: "ask", description: "Asks." })],
      limits: { maxCostUsd: 1 },
    });
    const result = await parent.run("go");
    expect(result.usage.costUsd).toBeCloseTo((10 + 1 + 100 + 10 + 10 + 1) / 1_000, 10);
  });
});
