import { Agent, BudgetExceededError, ConfigError, type Limits, tool } from "glassloop";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { LIMIT_DEFAULTS } from "../../src/core/vocabulary/limits.js";
import { capture, expectEveryCallAnswered, ofType } from "../helpers/core.js";

const add = tool({
  name: "add",
  description: "Adds.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const twoStepScript = () =>
  new ScriptedModel([
    { toolCalls: [{ id: "c1", name: "add", args: { a: 200, b: 10 } }] },
    { toolCalls: [{ id: "c2", name: "add", args: { a: 210, b: 210 } }] },
    { text: "420" },
  ]);

async function failure(agent: Agent<undefined, string>, input = "go") {
  const captured = await capture((onEvent) => agent.run(input, { onEvent }));
  expect(captured.result, "a budget stop must never look like success").toBeUndefined();
  expect(captured.error).toBeInstanceOf(BudgetExceededError);
  const error = captured.error as BudgetExceededError;
  expect(error.code).toBe("budget_exceeded");
  expectEveryCallAnswered(error.messages);
  expect(captured.events.at(-1)).toMatchObject({ type: "run_end", status: "budget_exceeded" });
  expect(ofType(captured.events, "run_end")[0]?.messages).toEqual(error.messages);
  expect(ofType(captured.events, "error")).toMatchObject([
    { code: "budget_exceeded", message: error.message },
  ]);
  return { error, events: captured.events };
}

describe("maxSteps", () => {
  it("defaults to 15 model calls", async () => {
    expect(LIMIT_DEFAULTS.maxSteps).toBe(15);
    const model = new FunctionModel((_req, i) => ({ toolCalls: [{ name: "add", args: { a: i, b: 1 } }] }));
    const { error } = await failure(new Agent({ model, tools: [add] }));
    expect(model.requests).toHaveLength(15);
    expect(error).toMatchObject({ limit: "maxSteps", used: 15, max: 15 });
    expect(error.usage.requests).toBe(15);
    expect(error.usage.toolCalls).toBe(15);
  });

  it("maxSteps: 1 on a two-step task fails explicitly, with the partial transcript and usage", async () => {
    const model = twoStepScript();
    const agent = new Agent({ instructions: "Calc.", model, tools: [add], limits: { maxSteps: 1 } });
    const { error } = await failure(agent, "Add 200 and 10, then double it.");
    expect(model.requests).toHaveLength(1);
    expect(error.limit).toBe("maxSteps");
    expect(error.used).toBe(1);
    expect(error.max).toBe(1);
    expect(error.message).toBe("Budget exceeded: maxSteps (used 1 of 1)");
    expect(error.messages).toEqual([
      { role: "system", content: "Calc." },
      { role: "user", content: "Add 200 and 10, then double it." },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "add", arguments: '{"a":200,"b":10}' }],
      },
      { role: "tool", toolCallId: "c1", toolName: "add", content: "210" },
    ]);
    expect(error.usage).toMatchObject({ requests: 1, toolCalls: 1 });
    expect(error.usage.steps).toHaveLength(1);
    expect(error.runId).toMatch(/^run_/);
  });
});

describe("maxToolCalls", () => {
  it("stops before the call over the limit, giving it and its turn-mates a result", async () => {
    const run = vi.fn(({ a, b }: { a: number; b: number }) => a + b);
    const counted = tool({
      name: "add",
      description: "d",
      input: z.object({ a: z.number(), b: z.number() }),
      run,
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "1", name: "add", args: { a: 1, b: 1 } },
          { id: "2", name: "add", args: { a: 2, b: 2 } },
          { id: "3", name: "add", args: { a: 3, b: 3 } },
        ],
      },
    ]);
    const agent = new Agent({
      model,
      tools: [counted],
      limits: { maxToolCalls: 2 },
      environment: { concurrency: 1 },
    });
    const { error } = await failure(agent);
    expect(run).toHaveBeenCalledTimes(2);
    expect(error).toMatchObject({ limit: "maxToolCalls", used: 2, max: 2 });
    expect(error.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "3",
      toolName: "add",
      content: "Not executed: the maxToolCalls budget is spent.",
      isError: true,
    });
  });

  it("counts across steps", async () => {
    const model = twoStepScript();
    const { error } = await failure(new Agent({ model, tools: [add], limits: { maxToolCalls: 1 } }));
    expect(model.requests).toHaveLength(2);
    expect(error).toMatchObject({ limit: "maxToolCalls", used: 1, max: 1 });
    expect(error.messages.at(-1)).toMatchObject({
      toolCallId: "c2",
      content: "Not executed: the maxToolCalls budget is spent.",
    });
  });

  it("does not count refused calls", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "nope", args: {} }] },
      { toolCalls: [{ name: "add", args: "{bad" }] },
      { toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] },
      { text: "2" },
    ]);
    const result = await new Agent({ model, tools: [add], limits: { maxToolCalls: 1 } }).run("go");
    expect(result.output).toBe("2");
    expect(result.usage.toolCalls).toBe(1);
  });
});

describe("final_result spends no budget: like a text answer, it only carries what the model said", () => {
  const output = z.object({ n: z.number() });

  it("is not a tool call for maxToolCalls or usage", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] },
      { toolCalls: [{ name: "add", args: { a: 2, b: 2 } }] },
      { toolCalls: [{ name: "final_result", args: { n: 4 } }] },
    ]);
    const result = await new Agent({ model, tools: [add], output, limits: { maxToolCalls: 2 } }).run("go");
    expect(result.output).toEqual({ n: 4 });
    expect(result.usage.toolCalls).toBe(2);
  });

  it("is accepted at exactly maxTokens, as a text answer would be", async () => {
    const text = new ScriptedModel([{ text: "4", usage: { inputTokens: 60, outputTokens: 40 } }]);
    expect((await new Agent({ model: text, limits: { maxTokens: 100 } }).run("go")).output).toBe("4");
    const typed = new ScriptedModel([
      { toolCalls: [{ name: "final_result", args: { n: 4 } }], usage: { inputTokens: 60, outputTokens: 40 } },
    ]);
    const result = await new Agent({ model: typed, output, limits: { maxTokens: 100 } }).run("go");
    expect(result.output).toEqual({ n: 4 });
  });
});

describe("maxTokens", () => {
  it("ends the run when a response pushes the total past the limit, even a final-looking one", async () => {
    const model = new ScriptedModel([
      { text: "a long answer", usage: { inputTokens: 60, outputTokens: 50 } },
    ]);
    const { error } = await failure(new Agent({ model, limits: { maxTokens: 100 } }));
    expect(error).toMatchObject({ limit: "maxTokens", used: 110, max: 100 });
    expect(error.messages.at(-1)).toEqual({ role: "assistant", content: "a long answer" });
  });

  it("refuses the next model call and tool call once the limit is reached exactly", async () => {
    const run = vi.fn(() => 1);
    const t = tool({ name: "t", description: "d", input: z.object({}), run });
    const model = new ScriptedModel([
      { toolCalls: [{ id: "x", name: "t", args: {} }], usage: { inputTokens: 70, outputTokens: 30 } },
    ]);
    const { error } = await failure(new Agent({ model, tools: [t], limits: { maxTokens: 100 } }));
    expect(run).not.toHaveBeenCalled();
    expect(error).toMatchObject({ limit: "maxTokens", used: 100, max: 100 });
    expect(error.messages.at(-1)).toMatchObject({
      toolCallId: "x",
      content: "Not executed: the maxTokens budget is spent.",
    });
  });

  it("lets a run within the limit finish", async () => {
    const model = new ScriptedModel([{ text: "ok", usage: { inputTokens: 60, outputTokens: 40 } }]);
    const result = await new Agent({ model, limits: { maxTokens: 100 } }).run("go");
    expect(result.output).toBe("ok");
  });
});

describe("maxCostUsd", () => {
  const price = { inputPerMTok: 2, outputPerMTok: 10 };

  it("stops when the priced usage passes the limit", async () => {
    const model = new ScriptedModel(
      [
        {
          toolCalls: [{ name: "add", args: { a: 1, b: 1 } }],
          usage: { inputTokens: 100_000, outputTokens: 10_000 },
        },
        { text: "2", usage: { inputTokens: 100_000, outputTokens: 10_000 } },
      ],
      { price },
    );
    const { error } = await failure(new Agent({ model, tools: [add], limits: { maxCostUsd: 0.5 } }));
    // 2 × (0.1 M × $2 + 0.01 M × $10) = $0.60
    expect(error.limit).toBe("maxCostUsd");
    expect(error.used).toBeCloseTo(0.6, 10);
    expect(error.max).toBe(0.5);
    expect(error.message).toBe("Budget exceeded: maxCostUsd (used 0.6000 of 0.5000)");
    expect(error.usage.costUsd).toBeCloseTo(0.6, 10);
  });

  it("refuses the limit at construction when the model has no price", () => {
    const make = () =>
      new Agent({ model: new ScriptedModel([], { price: null }), limits: { maxCostUsd: 1 } });
    expect(make).toThrowError(ConfigError);
    expect(make).toThrowError(
      'limits.maxCostUsd is set but model "scripted:test" has no known price; give the model a price or drop the limit',
    );
  });
});

describe("timeoutMs", () => {
  it("aborts a hanging model call", async () => {
    const model = new ScriptedModel([{ text: "never", delayMs: Number.POSITIVE_INFINITY }]);
    const started = performance.now();
    const { error } = await failure(new Agent({ model, limits: { timeoutMs: 30 } }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error.limit).toBe("timeoutMs");
    expect(error.max).toBe(30);
    expect(error.used).toBeGreaterThanOrEqual(29);
  });

  it("aborts a model that ignores its signal", async () => {
    const model = new FunctionModel(() => new Promise(() => {}));
    const { error } = await failure(new Agent({ model, limits: { timeoutMs: 20 } }));
    expect(error.limit).toBe("timeoutMs");
  });

  it("aborts a hanging tool, fires its signal and gives it an 'aborted' result", async () => {
    let signal: AbortSignal | undefined;
    const hang = tool({
      name: "hang",
      description: "d",
      input: z.object({}),
      run: (_args, options) => {
        signal = options.signal;
        return new Promise<never>(() => {}); // ignores the signal on purpose
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ id: "h", name: "hang", args: {} }] },
      { text: "never" },
    ]);
    const { error, events } = await failure(new Agent({ model, tools: [hang], limits: { timeoutMs: 30 } }));
    expect(error.limit).toBe("timeoutMs");
    expect(signal?.aborted).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(error.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "h",
      toolName: "hang",
      content: "Tool hang was aborted: the run was stopped.",
      isError: true,
    });
    expect(ofType(events, "tool_result")[0]?.status).toBe("aborted");
  });
});

describe("limits are validated", () => {
  it.each<[string, Limits]>([
    ["maxSteps", { maxSteps: Number.NaN }],
    ["maxSteps", { maxSteps: -1 }],
    ["maxToolCalls", { maxToolCalls: 1.5 }],
    ["maxTokens", { maxTokens: -10 }],
    ["timeoutMs", { timeoutMs: -5 }],
    ["maxCostUsd", { maxCostUsd: Number.NaN }],
    ["maxRetries", { maxRetries: -1 }],
  ])("refuses a bad %s at construction", (name, limits) => {
    const make = () => new Agent({ model: new ScriptedModel([]), limits });
    expect(make).toThrowError(ConfigError);
    expect(make).toThrowError(new RegExp(`limits\\.${name}`));
  });

  it("refuses bad limits passed to one run, before any model call", async () => {
    const model = new ScriptedModel([{ text: "never" }]);
    await expect(new Agent({ model }).run("go", { limits: { maxSteps: -1 } })).rejects.toThrowError(
      "options.limits.maxSteps must be a whole number >= 0 (or Infinity for no limit), got -1",
    );
    expect(model.requests).toHaveLength(0);
  });

  it("accepts Infinity as 'no limit' without firing a timer early", async () => {
    const model = new ScriptedModel([{ text: "ok", delayMs: 20 }]);
    const result = await new Agent({
      model,
      limits: { timeoutMs: Number.POSITIVE_INFINITY, maxTokens: Number.POSITIVE_INFINITY },
    }).run("go");
    expect(result.output).toBe("ok");
  });
});
