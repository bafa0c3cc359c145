import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, BudgetExceededError, ConfigError, type Message, tool } from "glassloop";
import { SqliteStore } from "glassloop/store";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";

let dir: string;
let file: string;
const opened: SqliteStore[] = [];
function store(): SqliteStore {
  const s = new SqliteStore({ path: file });
  opened.push(s);
  return s;
}
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "glassloop-sessions-"));
  file = join(dir, "g.db");
});
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

const add = tool({
  name: "add",
  description: "Adds.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

describe("sessions", () => {
  it("persist across Agent instances and stores: the next run sees the whole history", async () => {
    const first = new Agent({
      instructions: "Be brief.",
      model: new ScriptedModel([{ toolCalls: [{ name: "add", args: { a: 2, b: 3 } }] }, { text: "5" }]),
      tools: [add],
      store: store(),
    });
    await first.run("What is 2+3?", { session: "alice" });

    const model = new ScriptedModel([{ text: "You asked about 2+3." }]);
    const second = new Agent({ instructions: "Be brief.", model, tools: [add], store: store() });
    const result = await second.run("What did I ask?", { session: "alice" });
    const sent = model.requests[0]?.messages ?? [];
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent[0]).toEqual({ role: "user", content: "What is 2+3?" });
    expect(result.messages[0]).toEqual({ role: "system", content: "Be brief." });

    const saved = await store().readSession("alice");
    expect(saved).toEqual(result.messages.slice(1));
    expect(saved.filter((m) => m.role === "system")).toEqual([]);
  });

  it("serializes two concurrent runs on one session in a process: never interleaved", async () => {
    const s = store();
    const seen: Message[][] = [];
    const model = new FunctionModel(async (request) => {
      seen.push(request.messages);
      await new Promise((r) => setTimeout(r, 30));
      return { text: `answer ${seen.length}` };
    });
    const agent = new Agent({ model, store: s });
    const [a, b] = await Promise.all([
      agent.run("first", { session: "shared" }),
      agent.run("second", { session: "shared" }),
    ]);
    expect(a.output).toBe("answer 1");
    expect(b.messages.map((m) => m.content)).toEqual(["first", "answer 1", "second", "answer 2"]);
    expect(await s.readSession("shared")).toEqual(b.messages);
    // Another session is not held up by this one.
    const other = await agent.run("solo", { session: "other" });
    expect(other.messages).toHaveLength(2);
  });

  it("keeps the transcript of a run that stopped on a budget, every call paired", async () => {
    const s = store();
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: "add", args: { a: 1, b: 1 } }] }]),
      tools: [add],
      store: s,
      limits: { maxSteps: 1 },
    });
    await expect(agent.run("loop", { session: "b" })).rejects.toBeInstanceOf(BudgetExceededError);
    const saved = await s.readSession("b");
    expect(saved.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    const [run] = await s.listRuns({ sessionId: "b" });
    expect(run?.status).toBe("budget_exceeded");
  });

  it("lists, reads, forks and deletes sessions through the agent's store", async () => {
    const agent = new Agent({ model: new ScriptedModel([{ text: "a" }, { text: "b" }]), store: store() });
    await agent.run("one", { session: "s1" });
    await agent.run("two", { session: "s1" });
    await agent.store.forkSession("s1", "s2", { messages: 2 });
    expect((await agent.store.readSession("s2")).map((m) => m.content)).toEqual(["one", "a"]);
    expect((await agent.store.listSessions()).map((x) => [x.sessionId, x.messageCount]).sort()).toEqual([
      ["s1", 4],
      ["s2", 2],
    ]);
    await agent.store.deleteSession("s1");
    expect((await agent.store.listSessions()).map((x) => x.sessionId)).toEqual(["s2"]);
  });

  it("forkSession refuses a message count that is not a whole number >= 0", async () => {
    const agent = new Agent({ model: new ScriptedModel([{ text: "a" }]), store: store() });
    await agent.run("one", { session: "s1" });
    for (const messages of [-1, 1.5, Number.NaN]) {
      await expect(agent.store.forkSession("s1", "s2", { messages })).rejects.toBeInstanceOf(ConfigError);
    }
    await expect(agent.store.forkSession("s1", "s2", { messages: -1 })).rejects.toThrowError(
      "forkSession: messages must be a whole number >= 0, got -1",
    );
    // Nothing was created by the refusals.
    expect((await agent.store.listSessions()).map((x) => x.sessionId)).toEqual(["s1"]);
    await agent.store.forkSession("s1", "s2", { messages: 0 });
    expect(await agent.store.readSession("s2")).toEqual([]);
  });

  it("refuses session and history together", async () => {
    const agent = new Agent({ model: new ScriptedModel([]), store: store() });
    await expect(agent.run("x", { session: "s", history: [] })).rejects.toBeInstanceOf(ConfigError);
    // The refusal took no lock: the session is free.
    const ok = new Agent({ model: new ScriptedModel([{ text: "fine" }]), store: store() });
    await expect(ok.run("x", { session: "s" })).resolves.toMatchObject({ output: "fine" });
  });
});
