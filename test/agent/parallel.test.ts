import { Agent, ToolRegistry, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { ENVIRONMENT_DEFAULTS } from "glassloop/tools";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { capture, expectEveryCallAnswered, ofType } from "../helpers/core.js";

/** A tool that reports how many of its calls are in flight at once, and finishes when told. */
function tracked() {
  let inFlight = 0;
  let peak = 0;
  const started: string[] = [];
  const finished: string[] = [];
  const release = new Map<string, () => void>();
  const whenStarted = new Map<string, () => void>();
  const t = tool({
    name: "work",
    description: "Works on a key.",
    input: z.object({ key: z.string() }),
    run: async ({ key }) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      started.push(key);
      whenStarted.get(key)?.();
      await new Promise<void>((resolve) => release.set(key, resolve));
      inFlight--;
      finished.push(key);
      return `done ${key}`;
    },
  });
  const started$ = (key: string) =>
    new Promise<void>((resolve) => (started.includes(key) ? resolve() : whenStarted.set(key, resolve)));
  return {
    tool: t,
    started,
    finished,
    started$,
    finish: (key: string) => release.get(key)?.(),
    get peak() {
      return peak;
    },
  };
}

const calls = (...keys: string[]) => keys.map((key) => ({ id: `id_${key}`, name: "work", args: { key } }));

describe("several calls in one turn", () => {
  it("run concurrently: all start before any finishes", async () => {
    const t = tracked();
    const model = new ScriptedModel([{ toolCalls: calls("a", "b", "c") }, { text: "ok" }]);
    const running = new Agent({ model, tools: [t.tool] }).run("go");
    await Promise.all([t.started$("a"), t.started$("b"), t.started$("c")]);
    expect(t.finished).toEqual([]);
    expect(t.peak).toBe(3);
    t.finish("c");
    t.finish("b");
    t.finish("a");
    await running;
  });

  it("record results in the order the model listed them, each with its call id", async () => {
    const t = tracked();
    const model = new ScriptedModel([{ toolCalls: calls("a", "b", "c") }, { text: "ok" }]);
    const captured = capture((onEvent) => new Agent({ model, tools: [t.tool] }).run("go", { onEvent }));
    await Promise.all([t.started$("a"), t.started$("b"), t.started$("c")]);
    // Finish in reverse order.
    t.finish("c");
    await vi.waitFor(() => expect(t.finished).toEqual(["c"]));
    t.finish("b");
    await vi.waitFor(() => expect(t.finished).toEqual(["c", "b"]));
    t.finish("a");
    const { result, events } = await captured;
    expect(t.finished).toEqual(["c", "b", "a"]);
    const toolMessages = result?.messages.filter((m) => m.role === "tool");
    expect(toolMessages).toEqual([
      { role: "tool", toolCallId: "id_a", toolName: "work", content: "done a" },
      { role: "tool", toolCallId: "id_b", toolName: "work", content: "done b" },
      { role: "tool", toolCallId: "id_c", toolName: "work", content: "done c" },
    ]);
    expect(ofType(events, "tool_call").map((e) => e.toolCallId)).toEqual(["id_a", "id_b", "id_c"]);
    expect(ofType(events, "tool_result").map((e) => e.toolCallId)).toEqual(["id_a", "id_b", "id_c"]);
    expectEveryCallAnswered(result?.messages ?? []);
  });

  it("honour the concurrency cap, starting queued calls as others finish", async () => {
    const t = tracked();
    const model = new ScriptedModel([{ toolCalls: calls("a", "b", "c", "d", "e") }, { text: "ok" }]);
    const running = new Agent({ model, tools: [t.tool], environment: { concurrency: 2 } }).run("go");
    await Promise.all([t.started$("a"), t.started$("b")]);
    await new Promise((r) => setTimeout(r, 5));
    expect(t.started).toEqual(["a", "b"]);
    t.finish("b");
    await t.started$("c");
    expect(t.started).toEqual(["a", "b", "c"]);
    for (const key of ["a", "c"]) t.finish(key);
    await Promise.all([t.started$("d"), t.started$("e")]);
    t.finish("d");
    t.finish("e");
    const result = await running;
    expect(t.peak).toBe(2);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(
      ["a", "b", "c", "d", "e"].map((k) => `done ${k}`),
    );
  });

  it("default to four at a time", async () => {
    expect(ENVIRONMENT_DEFAULTS.concurrency).toBe(4);
    const t = tracked();
    const model = new ScriptedModel([{ toolCalls: calls("a", "b", "c", "d", "e", "f") }, { text: "ok" }]);
    const running = new Agent({ model, tools: [t.tool] }).run("go");
    await Promise.all(["a", "b", "c", "d"].map(t.started$));
    await new Promise((r) => setTimeout(r, 5));
    expect(t.started).toHaveLength(4);
    for (const key of ["a", "b", "c", "d"]) t.finish(key);
    await Promise.all(["e", "f"].map(t.started$));
    t.finish("e");
    t.finish("f");
    await running;
    expect(t.peak).toBe(4);
  });

  it("mix results, refusals and errors, each in its place", async () => {
    const ok = tool({
      name: "ok",
      description: "d",
      input: z.object({ n: z.number() }),
      run: ({ n }) => n * 2,
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "1", name: "ok", args: { n: 1 } },
          { id: "2", name: "missing", args: {} },
          { id: "3", name: "ok", args: { n: "x" } },
          { id: "4", name: "ok", args: { n: 4 } },
        ],
      },
      { text: "ok" },
    ]);
    const result = await new Agent({ model, tools: [ok] }).run("go");
    expect(result.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content])).toEqual([
      ["1", "2"],
      ["2", 'Unknown tool "missing". Available tools: ok.'],
      ["3", "Invalid arguments for ok: n: Invalid input: expected number, received string"],
      ["4", "8"],
    ]);
  });
});

describe("a turn that ends the run", () => {
  it("gives the other calls an explicit 'not executed' result when final_result is among them", async () => {
    const spy = vi.fn(() => "ran");
    const side = tool({ name: "side", description: "d", input: z.object({}), run: spy });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "s1", name: "side", args: {} },
          { id: "f", name: "final_result", args: { answer: 1 } },
          { id: "s2", name: "side", args: {} },
          { id: "u", name: "unknown", args: {} },
        ],
      },
    ]);
    const agent = new Agent({ model, tools: [side], output: z.object({ answer: z.number() }) });
    const { result, events } = await capture((onEvent) => agent.run("go", { onEvent }));
    expect(result?.output).toEqual({ answer: 1 });
    expect(spy).not.toHaveBeenCalled();
    const notRun = {
      toolName: "side",
      content: "Not executed: the run ended with final_result.",
      isError: true,
    };
    expect(result?.messages.slice(-4)).toEqual([
      { role: "tool", toolCallId: "s1", ...notRun },
      { role: "tool", toolCallId: "f", toolName: "final_result", content: '{"answer":1}' },
      { role: "tool", toolCallId: "s2", ...notRun },
      { role: "tool", toolCallId: "u", ...notRun, toolName: "unknown" },
    ]);
    expect(ofType(events, "tool_result").map((e) => e.status)).toEqual([
      "not_executed",
      "ok",
      "not_executed",
      "not_executed",
    ]);
    expectEveryCallAnswered(result?.messages ?? []);
  });

  it("does the same for a terminal tool", async () => {
    const spy = vi.fn(() => "ran");
    const side = tool({ name: "side", description: "d", input: z.object({}), run: spy });
    const stop = tool({ name: "stop", description: "d", input: z.object({}), run: () => "stopped" });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "a", name: "side", args: {} },
          { id: "b", name: "stop", args: {} },
        ],
      },
    ]);
    const tools = new ToolRegistry().register(side).register(stop, { terminal: true });
    const result = await new Agent({ model, tools }).run("go");
    expect(result.output).toBe("stopped");
    expect(spy).not.toHaveBeenCalled();
    expect(result.messages.at(-2)).toMatchObject({
      toolCallId: "a",
      content: "Not executed: the run ended with stop.",
    });
  });

  it("runs the other calls when the final call is invalid, and the model tries again", async () => {
    const spy = vi.fn(() => "ran");
    const side = tool({ name: "side", description: "d", input: z.object({}), run: spy });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "s", name: "side", args: {} },
          { id: "f", name: "final_result", args: { answer: "nope" } },
        ],
      },
      { toolCalls: [{ name: "final_result", args: { answer: 2 } }] },
    ]);
    const result = await new Agent({ model, tools: [side], output: z.object({ answer: z.number() }) }).run(
      "go",
    );
    expect(spy).toHaveBeenCalledTimes(1);
    expect(result.output).toEqual({ answer: 2 });
  });
});

describe("call ids", () => {
  it("replaces empty or duplicate ids so every call pairs with exactly one result", async () => {
    const echo = tool({
      name: "echo",
      description: "d",
      input: z.object({ n: z.number() }),
      run: ({ n }) => n,
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "call_1_1", name: "echo", args: { n: 1 } },
          { id: "same", name: "echo", args: { n: 2 } },
          { id: "same", name: "echo", args: { n: 3 } },
          { id: "", name: "echo", args: { n: 4 } },
        ],
      },
      { text: "ok" },
    ]);
    const result = await new Agent({ model, tools: [echo] }).run("go");
    const assistant = result.messages.find((m) => m.role === "assistant");
    const ids = assistant?.role === "assistant" ? assistant.toolCalls?.map((c) => c.id) : [];
    expect(ids).toEqual(["call_1_1", "same", "call_1_2", "call_1_3"]);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => [m.toolCallId, m.content])).toEqual([
      ["call_1_1", "1"],
      ["same", "2"],
      ["call_1_2", "3"],
      ["call_1_3", "4"],
    ]);
    expectEveryCallAnswered(result.messages);
  });

  it("never generates an id that the continued history already holds", async () => {
    const echo = tool({ name: "echo", description: "d", input: z.object({}), run: () => "e" });
    const script = () =>
      new ScriptedModel([{ toolCalls: [{ id: "", name: "echo", args: {} }] }, { text: "ok" }]);
    const first = await new Agent({ model: script(), tools: [echo] }).run("one");
    const second = await new Agent({ model: script(), tools: [echo] }).run("two", {
      history: first.messages,
    });
    const ids = second.messages.flatMap((m) =>
      m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : [],
    );
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(ids.length);
    expectEveryCallAnswered(second.messages);
  });
});
