import { Agent, type AgentEvent, ConfigError, type Message } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it, vi } from "vitest";
import { add, multiply } from "../helpers/calculator-tools.js";
import { ofType } from "../helpers/core.js";

const calculatorModel = () =>
  new ScriptedModel([
    { toolCalls: [{ name: "add", args: { a: 200, b: 10 } }] },
    { toolCalls: [{ name: "multiply", args: { a: 210, b: 2 } }] },
    { text: "The result is 420." },
  ]);
const calculator = (model = calculatorModel()) =>
  new Agent({ instructions: "Perform arithmetic with the tools.", model, tools: [add, multiply] });
const INPUT = "Add 200 and 10, then multiply the result by 2.";

async function collect(iterable: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe("the event stream of a run", () => {
  it("comes in this exact order for the calculator", async () => {
    const events: AgentEvent[] = [];
    await calculator().run(INPUT, { onEvent: (e) => events.push(e) });
    expect(events.map((e) => ("step" in e ? `${e.type}:${e.step}` : e.type))).toEqual([
      "run_start",
      "step_start:1",
      "model_request:1",
      "model_response:1",
      "tool_call:1",
      "tool_result:1",
      "step_end:1",
      "step_start:2",
      "model_request:2",
      "model_response:2",
      "tool_call:2",
      "tool_result:2",
      "step_end:2",
      "step_start:3",
      "model_request:3",
      "model_response:3",
      "step_end:3",
      "run_end",
    ]);
  });

  it("stamps every event with the run id and a non-decreasing time", async () => {
    const events: AgentEvent[] = [];
    const result = await calculator().run(INPUT, { onEvent: (e) => events.push(e) });
    for (const e of events) expect(e.runId).toBe(result.runId);
    const times = events.map((e) => e.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("carries what each step did", async () => {
    const model = calculatorModel();
    const events: AgentEvent[] = [];
    const result = await calculator(model).run(INPUT, { onEvent: (e) => events.push(e) });
    expect(events[0]).toMatchObject({ type: "run_start", model: "scripted:test", input: INPUT });
    const [first] = ofType(events, "model_response");
    expect(first).toMatchObject({
      step: 1,
      text: "",
      toolCalls: [{ id: "call_1", name: "add", arguments: '{"a":200,"b":10}' }],
      finishReason: "tool_calls",
    });
    expect(first?.usage.inputTokens).toBeGreaterThan(0);
    expect(first?.latencyMs).toBeGreaterThanOrEqual(0);
    expect(first?.raw).toBeDefined();
    expect(ofType(events, "tool_call")[0]).toMatchObject({
      toolCallId: "call_1",
      toolName: "add",
      arguments: '{"a":200,"b":10}',
    });
    const results = ofType(events, "tool_result");
    expect(results.map((r) => [r.toolName, r.status, r.content])).toEqual([
      ["add", "ok", "210"],
      ["multiply", "ok", "420"],
    ]);
    for (const r of results) expect(r.durationMs).toBeGreaterThanOrEqual(0);
    for (const s of ofType(events, "step_end")) expect(s.durationMs).toBeGreaterThanOrEqual(0);
    const end = events.at(-1);
    expect(end).toMatchObject({ type: "run_end", status: "ok", output: "The result is 420." });
    if (end?.type !== "run_end") throw new Error("no run_end");
    expect(end.messages).toEqual(result.messages);
    expect(end.usage).toMatchObject({ requests: 3, toolCalls: 2 });
  });

  it("model_request carries the exact body the model received", async () => {
    const model = calculatorModel();
    const events: AgentEvent[] = [];
    await calculator(model).run(INPUT, { onEvent: (e) => events.push(e) });
    const requests = ofType(events, "model_request");
    expect(requests).toHaveLength(3);
    requests.forEach((event, i) => {
      expect(event.attempt).toBe(1);
      expect(event.model).toBe("scripted:test");
      expect(event.body).toEqual({ model: "scripted:test", ...model.requests[i] });
    });
    expect(requests[0]?.body).toEqual({
      model: "scripted:test",
      instructions: "Perform arithmetic with the tools.",
      messages: [{ role: "user", content: INPUT }],
      tools: [
        { name: "add", description: "Adds two numbers.", parameters: add.parameters },
        { name: "multiply", description: "Multiplies two numbers.", parameters: multiply.parameters },
      ],
      stream: false,
    });
  });

  it("an event listener that throws does not break the run", async () => {
    const warn = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    try {
      const result = await calculator().run(INPUT, {
        onEvent: () => {
          throw new Error("listener bug");
        },
      });
      expect(result.output).toBe("The result is 420.");
      expect(warn).toHaveBeenCalledWith(expect.stringContaining("listener bug"));
    } finally {
      warn.mockRestore();
    }
  });
});

describe("stream()", () => {
  it("yields the same events as run({ onEvent }), plus text deltas, and the same transcript", async () => {
    const viaRun: AgentEvent[] = [];
    const ran = await calculator().run(INPUT, { onEvent: (e) => viaRun.push(e) });
    const stream = calculator().stream(INPUT);
    const viaStream = await collect(stream);
    const streamed = await stream.result;

    expect(streamed.messages).toEqual(ran.messages);
    expect(streamed.output).toBe(ran.output);
    // Deltas (text, and the pieces of a tool call's arguments) exist only when streaming.
    const deltaTypes = new Set(["text_delta", "reasoning_delta", "tool_call_delta"]);
    const shape = (events: AgentEvent[]) => events.filter((e) => !deltaTypes.has(e.type)).map((e) => e.type);
    expect(shape(viaStream)).toEqual(shape(viaRun));
    expect(viaRun.filter((e) => deltaTypes.has(e.type))).toEqual([]);
    // Each step's streamed argument pieces add up to the arguments of the call that runs.
    const pieces = ofType(viaStream, "tool_call_delta");
    expect(pieces.length).toBeGreaterThan(0);
    const streamedArgs = new Map<string, string>();
    for (const p of pieces) {
      const key = `${p.step}/${p.index}`;
      streamedArgs.set(key, (streamedArgs.get(key) ?? "") + p.argumentsDelta);
    }
    const argsOf = (text: string) => JSON.parse(text) as unknown;
    const calls = ofType(viaStream, "tool_call");
    expect([...streamedArgs.values()].map(argsOf)).toEqual(calls.map((c) => argsOf(c.arguments)));
    const deltas = ofType(viaStream, "text_delta");
    expect(deltas.map((d) => d.text).join("")).toBe("The result is 420.");
    expect(deltas.every((d) => d.step === 3)).toBe(true);
    // Deltas arrive between the request and the response of their step.
    const types = viaStream.map((e) => e.type);
    expect(types.indexOf("text_delta")).toBeGreaterThan(types.lastIndexOf("model_request"));
    expect(types.lastIndexOf("text_delta")).toBeLessThan(types.lastIndexOf("model_response"));
    // The one difference on the wire: the stream flag.
    expect(ofType(viaStream, "model_request").map((r) => (r.body as { stream: boolean }).stream)).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("calls onEvent too, with the very events it yields", async () => {
    const seen: AgentEvent[] = [];
    const stream = calculator().stream(INPUT, { onEvent: (e) => seen.push(e) });
    const events = await collect(stream);
    expect(seen).toEqual(events);
  });

  it("settles result even when nobody iterates", async () => {
    const result = await calculator().stream(INPUT).result;
    expect(result.output).toBe("The result is 420.");
  });

  it("keeps failures in the events and rejects result, without an unhandled rejection", async () => {
    const model = new ScriptedModel([{ error: "provider exploded" }]);
    const stream = new Agent({ model }).stream("go");
    const events = await collect(stream);
    expect(events.map((e) => e.type)).toEqual([
      "run_start",
      "step_start",
      "model_request",
      "step_end",
      "error",
      "run_end",
    ]);
    expect(ofType(events, "error")[0]).toMatchObject({
      code: "model_error",
      message: "Model call failed: provider exploded",
    });
    await expect(stream.result).rejects.toThrowError("Model call failed: provider exploded");
  });

  it("throws from the iteration when the run cannot start at all", async () => {
    const model = new ScriptedModel([{ text: "never" }]);
    const stream = new Agent({ model }).stream("go", {
      history: [{ role: "robot", content: "?" }] as unknown as Message[],
    });
    await expect(collect(stream)).rejects.toBeInstanceOf(ConfigError);
    await expect(stream.result).rejects.toBeInstanceOf(ConfigError);
    expect(model.requests).toHaveLength(0);
  });
});
