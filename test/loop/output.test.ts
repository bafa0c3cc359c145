import { Agent, ConfigError, ModelBehaviorError, ToolError, ToolRegistry, tool } from "glassloop";
import { ScriptedModel, type ScriptStep } from "glassloop/testing";
import { FINAL_RESULT_TOOL } from "glassloop/tools";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { capture, expectEveryCallAnswered, ofType } from "../helpers/core.js";

const add = tool({
  name: "add",
  description: "Adds.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const Answer = z.object({ answer: z.number().describe("The result") });

describe("output: a typed result through final_result", () => {
  it("ends when final_result is called with valid arguments, and types the output", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add", args: { a: 200, b: 10 } }] },
      { toolCalls: [{ id: "f", name: "final_result", args: { answer: 210 } }] },
    ]);
    const agent = new Agent({ model, tools: [add], output: Answer });
    const result = await agent.run("Add 200 and 10.");
    expectTypeOf(result.output).toEqualTypeOf<{ answer: number }>();
    expect(result.output).toEqual({ answer: 210 });
    expect(result.finishedBy).toBe(FINAL_RESULT_TOOL);
    expect(result.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "f",
      toolName: "final_result",
      content: '{"answer":210}',
    });
    expectEveryCallAnswered(result.messages);
    // The model is offered final_result with the output schema as its parameters.
    const finalSpec = model.requests[0]?.tools.find((t) => t.name === "final_result");
    expect(finalSpec?.parameters).toEqual({
      type: "object",
      properties: { answer: { type: "number", description: "The result" } },
      required: ["answer"],
      additionalProperties: false,
    });
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["add", "final_result"]);
  });

  it("returns the schema's output (transforms applied)", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "final_result", args: { when: "2024-05-01" } }] },
    ]);
    const output = z.object({ when: z.string().transform((s) => s.split("-").map(Number)) });
    const result = await new Agent({ model, output }).run("x");
    expectTypeOf(result.output).toEqualTypeOf<{ when: number[] }>();
    expect(result.output).toEqual({ when: [2024, 5, 1] });
  });

  it("sends invalid arguments back as feedback, then accepts a corrected call", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: "bad", name: "final_result", args: { answer: "four hundred twenty" } }] },
      { toolCalls: [{ id: "good", name: "final_result", args: { answer: 420 } }] },
    ]);
    const result = await new Agent({ model, output: Answer }).run("x");
    expect(result.output).toEqual({ answer: 420 });
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "bad",
      toolName: "final_result",
      content: "Invalid arguments for final_result: answer: Invalid input: expected number, received string",
      isError: true,
    });
  });

  it("sends a plain-text answer back as feedback when an object is required", async () => {
    const model = new ScriptedModel([
      { text: "The answer is 420." },
      { toolCalls: [{ name: "final_result", args: { answer: 420 } }] },
    ]);
    const result = await new Agent({ model, output: Answer }).run("x");
    expect(result.output).toEqual({ answer: 420 });
    expect(model.requests[1]?.messages.slice(-2)).toEqual([
      { role: "assistant", content: "The answer is 420." },
      {
        role: "user",
        content: 'A plain-text answer does not end this task. Call "final_result" with the final answer.',
      },
    ]);
  });

  it("gives up with ModelBehaviorError past the retry budget (default 3), transcript intact", async () => {
    const bad: ScriptStep[] = [
      { text: "just text" },
      { toolCalls: [{ name: "final_result", args: { answer: "x" } }] },
      { toolCalls: [{ name: "final_result", args: "{not json" }] },
      { text: "more text" },
    ];
    const model = new ScriptedModel(bad);
    const { error, events } = await capture((onEvent) =>
      new Agent({ model, output: Answer }).run("x", { onEvent }),
    );
    expect(error).toBeInstanceOf(ModelBehaviorError);
    const e = error as ModelBehaviorError;
    expect(e.code).toBe("model_behavior");
    expect(e.retries).toBe(3);
    expect(e.message).toBe(
      "The model's output was still unusable after 3 retries: it answered with text where a tool call must end the run",
    );
    expect(model.remaining).toBe(0);
    expectEveryCallAnswered(e.messages);
    expect(e.messages.at(-1)?.role).toBe("user"); // the feedback to the last bad answer is kept
    expect(e.usage.requests).toBe(4);
    expect(events.at(-1)).toMatchObject({ type: "run_end", status: "failed" });
    expect(ofType(events, "error")).toMatchObject([{ code: "model_behavior" }]);
  });

  it("takes limits.maxRetries, and counts only unusable answers in a row", async () => {
    const strict = new ScriptedModel([{ text: "a" }, { text: "b" }]);
    const one = await capture(() =>
      new Agent({ model: strict, output: Answer, limits: { maxRetries: 1 } }).run("x"),
    );
    expect(one.error).toBeInstanceOf(ModelBehaviorError);
    expect(strict.remaining).toBe(0);

    // bad, bad, useful step, bad, bad, final: never more than 2 in a row.
    const model = new ScriptedModel([
      { text: "a" },
      { toolCalls: [{ name: "final_result", args: {} }] },
      { toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] },
      { text: "b" },
      { toolCalls: [{ name: "nope", args: {} }] },
      { toolCalls: [{ name: "final_result", args: { answer: 3 } }] },
    ]);
    const result = await new Agent({ model, tools: [add], output: Answer, limits: { maxRetries: 2 } }).run(
      "x",
    );
    expect(result.output).toEqual({ answer: 3 });
  });

  it("wraps a non-object schema as { result } and unwraps it again", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "final_result", args: { result: [3, 1, 2] } }] }]);
    const agent = new Agent({ model, output: z.array(z.number()) });
    const result = await agent.run("x");
    expectTypeOf(result.output).toEqualTypeOf<number[]>();
    expect(result.output).toEqual([3, 1, 2]);
    expect(model.requests[0]?.tools[0]?.parameters).toEqual({
      type: "object",
      properties: { result: { type: "array", items: { type: "number" } } },
      required: ["result"],
      additionalProperties: false,
    });

    const scalar = new ScriptedModel([{ toolCalls: [{ name: "final_result", args: { result: "yes" } }] }]);
    const yes = await new Agent({ model: scalar, output: z.enum(["yes", "no"]) }).run("x");
    expectTypeOf(yes.output).toEqualTypeOf<"yes" | "no">();
    expect(yes.output).toBe("yes");
  });

  it("refuses output together with terminal tools, explaining the conflict", () => {
    const registry = new ToolRegistry().register(add, { terminal: true });
    const make = () =>
      // @ts-expect-error a registry with a terminal tool cannot be combined with output
      new Agent({ name: "calc", model: new ScriptedModel([]), tools: registry, output: Answer });
    expect(make).toThrowError(ConfigError);
    expect(make).toThrowError(
      'Agent "calc": "output" and terminal tools (add) both try to end the run. Use output (the run ends through final_result) or terminal tools, not both.',
    );
  });

  it("reserves the name final_result when output is set", () => {
    const clash = tool({ name: "final_result", description: "d", input: z.object({}), run: () => 1 });
    expect(() => new Agent({ model: new ScriptedModel([]), tools: [clash], output: Answer })).toThrowError(
      'Agent "agent": the tool name "final_result" is reserved for "output"',
    );
  });
});

describe("terminal tools", () => {
  const finish = tool({
    name: "finish",
    description: "Ends with a report.",
    input: z.object({ summary: z.string() }),
    run: ({ summary }) => ({ summary, words: summary.split(" ").length }),
  });
  const giveUp = tool({
    name: "give_up",
    description: "Ends without an answer.",
    input: z.object({ reason: z.string() }),
    run: ({ reason }) => reason.length,
  });

  it("ends the run with the tool's return value, as returned (not serialized)", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "finish", args: { summary: "all good here" } }] },
    ]);
    const agent = new Agent({
      model,
      tools: new ToolRegistry().register(add).register(finish, { terminal: true }),
    });
    const result = await agent.run("x");
    expectTypeOf(result.output).toEqualTypeOf<{ summary: string; words: number }>();
    expect(result.output).toEqual({ summary: "all good here", words: 3 });
    expect(result.finishedBy).toBe("finish");
  });

  it("with several terminal tools, any one ends the run; the output is their union", async () => {
    const tools = new ToolRegistry()
      .register(finish, { terminal: true })
      .register(giveUp, { terminal: true });
    const model = new ScriptedModel([{ toolCalls: [{ name: "give_up", args: { reason: "no data" } }] }]);
    const result = await new Agent({ model, tools }).run("x");
    expectTypeOf(result.output).toEqualTypeOf<{ summary: string; words: number } | number>();
    expect(result.output).toBe(7);
    expect(result.finishedBy).toBe("give_up");
  });

  it("answers plain text with feedback naming every terminal tool", async () => {
    const tools = new ToolRegistry()
      .register(finish, { terminal: true })
      .register(giveUp, { terminal: true });
    const model = new ScriptedModel([
      { text: "done!" },
      { toolCalls: [{ name: "finish", args: { summary: "s" } }] },
    ]);
    await new Agent({ model, tools }).run("x");
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: "user",
      content:
        'A plain-text answer does not end this task. Call "finish" or "give_up" with the final answer.',
    });
  });

  it("does not end the run when the terminal tool fails; the model gets the error", async () => {
    const picky = tool({
      name: "submit",
      description: "Submits.",
      input: z.object({ n: z.number() }),
      run: ({ n }) => {
        if (n < 0) throw new ToolError("n must not be negative");
        return n;
      },
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "submit", args: { n: -1 } }] },
      { toolCalls: [{ name: "submit", args: { n: 5 } }] },
    ]);
    const result = await new Agent({
      model,
      tools: new ToolRegistry().register(picky, { terminal: true }),
    }).run("x");
    expect(result.output).toBe(5);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({
      content: "n must not be negative",
      isError: true,
    });
  });

  it("ends with the first terminal call that succeeds when an earlier one in the turn failed", async () => {
    const failing = tool({
      name: "fail_end",
      description: "d",
      input: z.object({}),
      run: () => {
        throw new ToolError("cannot end this way");
      },
    });
    const tools = new ToolRegistry()
      .register(failing, { terminal: true })
      .register(finish, { terminal: true })
      .register(add);
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "a", name: "add", args: { a: 1, b: 1 } },
          { id: "f1", name: "fail_end", args: {} },
          { id: "f2", name: "finish", args: { summary: "second try" } },
        ],
      },
    ]);
    const result = await new Agent({ model, tools }).run("x");
    expect(result.output).toEqual({ summary: "second try", words: 2 });
    expect(result.finishedBy).toBe("finish");
    expect(result.messages.slice(-3)).toEqual([
      {
        role: "tool",
        toolCallId: "a",
        toolName: "add",
        content: "Not executed: the run ended with finish.",
        isError: true,
      },
      { role: "tool", toolCallId: "f1", toolName: "fail_end", content: "cannot end this way", isError: true },
      { role: "tool", toolCallId: "f2", toolName: "finish", content: '{"summary":"second try","words":2}' },
    ]);
  });
});

describe("a text answer the provider cut off", () => {
  it("is not reported as the output: the model is told and asked again", async () => {
    const model = new ScriptedModel([
      { text: "The answer is four hundred and", finishReason: "length" },
      { text: "420" },
    ]);
    const result = await new Agent({ model }).run("x");
    expect(result.output).toBe("420");
    expect(model.requests[1]?.messages.slice(-2)).toEqual([
      { role: "assistant", content: "The answer is four hundred and" },
      {
        role: "user",
        content: "Your answer was cut off at the output token limit. Answer again, more briefly.",
      },
    ]);
  });

  it("ends in ModelBehaviorError when it keeps happening, never in success", async () => {
    const model = new ScriptedModel([
      { text: "a", finishReason: "length" },
      { text: "b", finishReason: "content_filter" },
      { text: "c", finishReason: "length" },
      { text: "d", finishReason: "length" },
    ]);
    const { result, error } = await capture(() => new Agent({ model }).run("x"));
    expect(result).toBeUndefined();
    expect(error).toBeInstanceOf(ModelBehaviorError);
    expect(error?.message).toBe(
      "The model's output was still unusable after 3 retries: its answer was cut off at the output token limit",
    );
  });
});
