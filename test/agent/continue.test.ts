import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type AgentEvent, ConfigError, type Message, ModelCallError, tool } from "glassloop";
import { SqliteStore } from "glassloop/store";
import { ScriptedModel } from "glassloop/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ofType } from "../helpers/core.js";

const add = tool({
  name: "add",
  description: "Adds.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

/** A conversation whose last turn holds tool results the caller supplied: the model speaks next. */
const answeredByCaller: Message[] = [
  { role: "user", content: "What is 2 + 3?" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "add", arguments: '{"a":2,"b":3}' }] },
  { role: "tool", toolCallId: "c1", toolName: "add", content: "5" },
];

describe("a run with no new user message (input null)", () => {
  it("continues from tool results the caller supplied: the model sees the history as it is, with no empty user message", async () => {
    const model = new ScriptedModel([{ text: "2 + 3 = 5" }]);
    const events: AgentEvent[] = [];
    const result = await new Agent({ instructions: "Calc.", model, tools: [add] }).run(null, {
      history: answeredByCaller,
      onEvent: (e) => events.push(e),
    });
    expect(result.output).toBe("2 + 3 = 5");
    expect(model.requests[0]?.messages).toEqual(answeredByCaller);
    expect(result.messages).toEqual([
      { role: "system", content: "Calc." },
      ...answeredByCaller,
      { role: "assistant", content: "2 + 3 = 5" },
    ]);
    // The trace says the run continued, and what it answers: the conversation's last user message.
    expect(ofType(events, "run_start")[0]).toMatchObject({ continued: true, input: "What is 2 + 3?" });
  });

  it("answers a user message nobody answered yet, once, through stream() too", async () => {
    const history: Message[] = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "Add 1 and 1." },
    ];
    const model = new ScriptedModel([
      { toolCalls: [{ id: "c9", name: "add", args: { a: 1, b: 1 } }] },
      { text: "2" },
    ]);
    const stream = new Agent({ model, tools: [add] }).stream(null, { history });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const result = await stream.result;
    expect(result.output).toBe("2");
    expect(types[0]).toBe("run_start");
    expect(model.requests[0]?.messages).toEqual(history);
    expect(result.messages.filter((m) => m.role === "user")).toHaveLength(2);
  });

  it("closes calls the history left open before asking the model, as a run with input does", async () => {
    const open: Message[] = answeredByCaller.slice(0, 2);
    const model = new ScriptedModel([{ text: "I could not add them." }]);
    const result = await new Agent({ model, tools: [add] }).run(null, { history: open });
    expect(result.output).toBe("I could not add them.");
    const sent = model.requests[0]?.messages ?? [];
    expect(sent.at(-1)).toMatchObject({ role: "tool", toolCallId: "c1" });
  });

  it("refuses what cannot be continued, before any model call: an answer already given, an empty conversation, no conversation, attachments", async () => {
    const model = new ScriptedModel([{ text: "never" }]);
    const agent = new Agent({ model });
    const answered: Message[] = [...answeredByCaller, { role: "assistant", content: "5" }];
    await expect(agent.run(null, { history: answered })).rejects.toThrowError(
      /nothing to continue: the conversation ends with the assistant's answer/,
    );
    await expect(agent.run(null, { history: [] })).rejects.toThrowError(/nothing to continue/);
    // Untyped callers (JavaScript, `as never`) get the same typed errors at run time.
    await expect(agent.run(null, {} as never)).rejects.toThrowError(/pass `history` or `session`/);
    await expect(
      agent.run(null, {
        history: answeredByCaller,
        images: [{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }],
      } as never),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(agent.run(42 as never)).rejects.toThrowError(/a string, or null/);
    expect(model.requests).toHaveLength(0);
  });
});

describe("a session continued without a new message", () => {
  let dir: string;
  let store: SqliteStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "glassloop-continue-"));
    store = new SqliteStore({ path: join(dir, "g.db") });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("picks up a turn whose model call failed: the question is not sent twice, and the session keeps one copy", async () => {
    const failing = new ScriptedModel([{ error: "the provider is down" }]);
    await expect(
      new Agent({ model: failing, store, limits: { maxRetries: 0 } }).run("What is 2 + 3?", { session: "s" }),
    ).rejects.toBeInstanceOf(ModelCallError);

    const model = new ScriptedModel([{ text: "5" }]);
    const result = await new Agent({ model, store }).run(null, { session: "s" });
    expect(result.output).toBe("5");
    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: "What is 2 + 3?" }]);
    expect(await store.readSession("s")).toEqual([
      { role: "user", content: "What is 2 + 3?" },
      { role: "assistant", content: "5" },
    ]);
  });

  it("refuses a session that ends with an answer, and leaves it unlocked for the next turn", async () => {
    const agent = new Agent({ model: new ScriptedModel([{ text: "hello" }, { text: "bye" }]), store });
    await agent.run("hi", { session: "s" });
    await expect(agent.run(null, { session: "s" })).rejects.toThrowError(/nothing to continue/);
    await expect(agent.run("bye?", { session: "s" })).resolves.toMatchObject({ output: "bye" });
  });
});
