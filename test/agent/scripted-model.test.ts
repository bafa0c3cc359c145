import { Agent, ModelCallError, type ModelDelta, type ModelObserver, type ModelRequest } from "glassloop";
import { FunctionModel, ScriptExhaustedError, ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    signal: new AbortController().signal,
    ...overrides,
  };
}
function observer(deltas: ModelDelta[] = [], bodies: unknown[] = []): ModelObserver {
  return { onRequest: ({ body }) => bodies.push(body), onDelta: (d) => deltas.push(d) };
}

describe("ScriptedModel", () => {
  it("answers in script order with text, tool calls, ids and finish reasons", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "a", args: { x: 1 } },
          { name: "b", args: "{raw", id: "mine" },
        ],
      },
      { text: "done", finishReason: "length" },
    ]);
    const first = await model.generate(request(), observer());
    expect(first.toolCalls).toEqual([
      { id: "call_1", name: "a", arguments: '{"x":1}' },
      { id: "mine", name: "b", arguments: "{raw" },
    ]);
    expect(first.finishReason).toBe("tool_calls");
    expect(first.text).toBe("");
    const second = await model.generate(request(), observer());
    expect(second).toMatchObject({ text: "done", toolCalls: [], finishReason: "length" });
    expect(model.remaining).toBe(0);
  });

  it("fails loudly on a call past the end of the script", async () => {
    const model = new ScriptedModel([{ text: "only one" }]);
    await model.generate(request(), observer());
    const extra = model.generate(request({ messages: [{ role: "user", content: "one more?" }] }), observer());
    await expect(extra).rejects.toBeInstanceOf(ScriptExhaustedError);
    await expect(
      new ScriptedModel([]).generate(
        request({ messages: [{ role: "user", content: "one more?" }] }),
        observer(),
      ),
    ).rejects.toThrowError(
      'ScriptedModel "scripted:test" got request #1 but its script has 0 steps. Last message: user: one more?',
    );
  });

  it("makes an agent run fail (not invent an answer) when the script runs out", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "nothing", args: {} }] }]);
    const error = await new Agent({ model }).run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ code: "script_exhausted" });
    expect((error as ModelCallError).cause).toBeInstanceOf(ScriptExhaustedError);
  });

  it("records every request as a snapshot, and reports it as the sent body", async () => {
    const model = new ScriptedModel([{ text: "a" }], { id: "scripted:named" });
    const messages = [{ role: "user" as const, content: "hi" }];
    const bodies: unknown[] = [];
    await model.generate(
      request({ messages, instructions: "Be kind.", temperature: 0 }),
      observer([], bodies),
    );
    messages[0]!.content = "changed later";
    expect(model.requests).toEqual([
      { instructions: "Be kind.", messages: [{ role: "user", content: "hi" }], tools: [], temperature: 0 },
    ]);
    expect(bodies).toEqual([{ model: "scripted:named", ...model.requests[0] }]);
    expect(model.requests[0]).not.toHaveProperty("signal");
  });

  it("plays scripted failures", async () => {
    const model = new ScriptedModel([{ error: "rate limited" }, { error: new TypeError("typed") }]);
    await expect(model.generate(request(), observer())).rejects.toThrowError("rate limited");
    await expect(model.generate(request(), observer())).rejects.toBeInstanceOf(TypeError);
  });

  it("waits for delays, and a delay ends as soon as the signal fires", async () => {
    const model = new ScriptedModel([
      { text: "late", delayMs: 30 },
      { text: "never", delayMs: 60_000 },
    ]);
    const started = performance.now();
    await expect(model.generate(request(), observer())).resolves.toMatchObject({ text: "late" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);

    const controller = new AbortController();
    const pending = model.generate(request({ signal: controller.signal }), observer());
    setTimeout(() => controller.abort(new Error("stop")), 5);
    const abortStart = performance.now();
    await expect(pending).rejects.toThrowError("stop");
    expect(performance.now() - abortStart).toBeLessThan(1_000);
  });

  it("hangs on an infinite delay until aborted", async () => {
    const model = new ScriptedModel([{ text: "never", delayMs: Number.POSITIVE_INFINITY }]);
    const pending = model.generate(request({ signal: AbortSignal.timeout(10) }), observer());
    await expect(pending).rejects.toMatchObject({ name: "TimeoutError" });
  });

  it("streams text and tool-call deltas only when asked", async () => {
    const model = new ScriptedModel([
      { text: "Hello there, world.", toolCalls: [{ name: "t", args: { a: 1 }, id: "x" }] },
      { text: "quiet" },
    ]);
    const deltas: ModelDelta[] = [];
    await model.generate(request({ stream: true }), observer(deltas));
    expect(deltas).toEqual([
      { type: "text", text: "Hello " },
      { type: "text", text: "there, " },
      { type: "text", text: "world." },
      { type: "tool_call", index: 0, id: "x", name: "t", argumentsDelta: '{"a":1}' },
    ]);
    const none: ModelDelta[] = [];
    await model.generate(request({ stream: false }), observer(none));
    expect(none).toEqual([]);
  });

  it("uses scripted usage, or estimates it (about four characters a token)", async () => {
    const model = new ScriptedModel([
      { text: "x", usage: { inputTokens: 7, outputTokens: 3, cachedInputTokens: 2 } },
      { text: "12345678" },
    ]);
    expect((await model.generate(request(), observer())).usage).toEqual({
      inputTokens: 7,
      outputTokens: 3,
      cachedInputTokens: 2,
    });
    const estimated = (await model.generate(request(), observer())).usage;
    expect(estimated.outputTokens).toBe(2);
    expect(estimated.inputTokens).toBe(Math.ceil(JSON.stringify(request().messages).length / 4));
  });

  it("carries a price when given one, is free by default, and unpriced with price: null", () => {
    const price = { inputPerMTok: 1, outputPerMTok: 2 };
    expect(new ScriptedModel([], { price }).price).toEqual(price);
    expect(new ScriptedModel([]).price).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(new ScriptedModel([], { price: null }).price).toBeUndefined();
  });

  it("works under maxCostUsd as it comes (the README's Quick start with a scripted model)", async () => {
    const agent = new Agent({
      model: new ScriptedModel([{ text: "420" }]),
      limits: { maxCostUsd: 0.5 },
    });
    const result = await agent.run("Add 200 and 10, then multiply the result by 2.");
    expect(result.output).toBe("420");
    expect(result.usage.costUsd).toBe(0);
  });
});

describe("FunctionModel", () => {
  it("answers from a function of the request and its index, and records requests", async () => {
    const model = new FunctionModel(async (req, index) => ({
      text: `#${index}: ${req.messages.at(-1)?.content}`,
    }));
    expect(model.id).toBe("function:test");
    expect((await model.generate(request(), observer())).text).toBe("#0: hi");
    expect(
      (await model.generate(request({ messages: [{ role: "user", content: "yo" }] }), observer())).text,
    ).toBe("#1: yo");
    expect(model.requests.map((r) => r.messages.at(-1)?.content)).toEqual(["hi", "yo"]);
  });

  it("drives an agent through a multi-step run", async () => {
    const model = new FunctionModel((req) =>
      req.messages.some((m) => m.role === "tool")
        ? { text: "the tool said hi" }
        : { toolCalls: [{ name: "nope", args: {} }] },
    );
    const result = await new Agent({ model }).run("go");
    expect(result.output).toBe("the tool said hi");
    expect(model.requests).toHaveLength(2);
  });

  it("plays failures and delays the function returns", async () => {
    const model = new FunctionModel(() => ({ error: "nope", delayMs: 5 }));
    await expect(model.generate(request(), observer())).rejects.toThrowError("nope");
  });
});

describe("ScriptedModel.remaining", () => {
  it("never goes below zero, even after a call past the end", async () => {
    const model = new ScriptedModel([]);
    await model.generate(request(), observer()).catch(() => {});
    expect(model.remaining).toBe(0);
    expect(model.requests).toHaveLength(1);
  });
});
