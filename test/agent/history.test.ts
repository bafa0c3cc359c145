import { Agent, type AgentEvent, ConfigError, type Message, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectEveryCallAnswered, ofType } from "../helpers/core.js";

const add = tool({
  name: "add",
  description: "Adds.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

describe("a conversation across runs", () => {
  it("result.messages survives JSON and continues through { history }", async () => {
    const first = await new Agent({
      instructions: "Calc.",
      model: new ScriptedModel([
        { toolCalls: [{ id: "c1", name: "add", args: { a: 2, b: 3 } }] },
        { text: "5" },
      ]),
      tools: [add],
    }).run("2+3?");
    const stored = JSON.stringify(first.messages);
    const restored = JSON.parse(stored) as Message[];
    expect(restored).toEqual(first.messages);

    const model = new ScriptedModel([{ text: "10" }]);
    const second = await new Agent({ instructions: "Calc.", model, tools: [add] }).run("Double it.", {
      history: restored,
    });
    expect(second.output).toBe("10");
    expect(model.requests[0]?.messages).toEqual([
      ...first.messages.slice(1),
      { role: "user", content: "Double it." },
    ]);
    expect(second.messages).toEqual([
      ...first.messages,
      { role: "user", content: "Double it." },
      { role: "assistant", content: "10" },
    ]);
  });

  it("replaces the history's system prompt with the agent's current instructions", async () => {
    const history: Message[] = [
      { role: "system", content: "Old rules." },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ];
    const model = new ScriptedModel([{ text: "ok" }]);
    const result = await new Agent({ instructions: "New rules.", model }).run("again", { history });
    expect(model.requests[0]?.instructions).toBe("New rules.");
    expect(JSON.stringify(model.requests[0])).not.toContain("Old rules.");
    expect(result.messages[0]).toEqual({ role: "system", content: "New rules." });
  });

  it("does not change the history it was given", async () => {
    const history: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "", toolCalls: [{ id: "x", name: "add", arguments: "{}" }] },
    ];
    const copy = structuredClone(history);
    await new Agent({ model: new ScriptedModel([{ text: "ok" }]), tools: [add] }).run("again", { history });
    expect(history).toEqual(copy);
  });
});

describe("history from outside is checked", () => {
  it.each<[string, unknown, RegExp]>([
    ["not an array", { role: "user" }, /Invalid history: not a glassloop transcript \(at \(root\): /],
    ["an unknown role", [{ role: "robot", content: "?" }], /Invalid history: .*at 0/],
    ["a message without content", [{ role: "user" }], /Invalid history: .*at 0\.content/],
    [
      "a tool result without its call id",
      [{ role: "tool", toolName: "add", content: "5" }],
      /Invalid history: .*at 0\.toolCallId/,
    ],
    [
      "tool calls with non-string arguments",
      [{ role: "assistant", content: "", toolCalls: [{ id: "a", name: "add", arguments: { a: 1 } }] }],
      /Invalid history: .*at 0\.toolCalls\.0\.arguments/,
    ],
  ])("refuses %s with a ConfigError, before any model call", async (_label, history, message) => {
    const model = new ScriptedModel([{ text: "never" }]);
    const run = new Agent({ model }).run("go", { history: history as Message[] });
    await expect(run).rejects.toBeInstanceOf(ConfigError);
    await expect(run).rejects.toThrowError(message);
    expect(model.requests).toHaveLength(0);
  });

  it("refuses a tool result that answers no call of the turn before it (the model would see an orphan)", async () => {
    const model = new ScriptedModel([{ text: "never" }]);
    const history: Message[] = [
      { role: "user", content: "hi" },
      { role: "tool", toolCallId: "ghost", toolName: "add", content: "5" },
    ];
    await expect(new Agent({ model }).run("go", { history })).rejects.toThrowError(
      'Invalid history: at 1: the tool result for call "ghost" follows no assistant message that made that call',
    );
  });

  it("refuses a second result for the same call", async () => {
    const model = new ScriptedModel([{ text: "never" }]);
    const history: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "", toolCalls: [{ id: "c", name: "add", arguments: "{}" }] },
      { role: "tool", toolCallId: "c", toolName: "add", content: "1" },
      { role: "tool", toolCallId: "c", toolName: "add", content: "2" },
    ];
    await expect(new Agent({ model }).run("go", { history })).rejects.toThrowError(
      'Invalid history: at 3: a second result for tool call "c"',
    );
  });

  it("accepts ids reused in a later turn (some models number calls per turn)", async () => {
    const history: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "", toolCalls: [{ id: "0", name: "add", arguments: "{}" }] },
      { role: "tool", toolCallId: "0", toolName: "add", content: "1" },
      { role: "assistant", content: "", toolCalls: [{ id: "0", name: "add", arguments: "{}" }] },
      { role: "tool", toolCallId: "0", toolName: "add", content: "2" },
      { role: "assistant", content: "done" },
    ];
    const result = await new Agent({ model: new ScriptedModel([{ text: "ok" }]) }).run("go", { history });
    expect(result.output).toBe("ok");
  });

  it("closes a call the earlier run left without a result, right after its turn", async () => {
    const history: Message[] = [
      { role: "user", content: "2+3 and 4+5?" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "done", name: "add", arguments: '{"a":2,"b":3}' },
          { id: "lost", name: "add", arguments: '{"a":4,"b":5}' },
        ],
      },
      { role: "tool", toolCallId: "done", toolName: "add", content: "5" },
    ];
    const model = new ScriptedModel([{ text: "Let me redo 4+5." }]);
    const events: AgentEvent[] = [];
    const result = await new Agent({ model, tools: [add] }).run("Go on.", {
      history,
      onEvent: (e) => events.push(e),
    });
    const closed = {
      role: "tool",
      toolCallId: "lost",
      toolName: "add",
      content: "Not executed: the earlier run was interrupted before this call ran.",
      isError: true,
    };
    expect(model.requests[0]?.messages).toEqual([...history, closed, { role: "user", content: "Go on." }]);
    expectEveryCallAnswered(result.messages);
    expect(ofType(events, "tool_result")).toMatchObject([{ toolCallId: "lost", status: "not_executed" }]);
  });
});
