import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, BudgetExceededError, ConfigError, ModelCallError } from "glassloop";
import { Router } from "glassloop/multi";
import { SqliteStore } from "glassloop/store";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { expectEveryCallAnswered } from "../helpers/core.js";

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "glassloop-router-"));
  store = new SqliteStore({ path: join(dir, "g.db") });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A router model that always hands over to `name`. */
const routesTo = (name: string, usage = { inputTokens: 5, outputTokens: 1 }) =>
  new FunctionModel(() => ({ toolCalls: [{ name: `transfer_to_${name}`, args: {} }], usage }));

describe("Router.run with a session", () => {
  it("works, and a second routed run on the session sees the first", async () => {
    const routerModel = routesTo("chat");
    const chatModel = new ScriptedModel([{ text: "Hello Alice!" }, { text: "Your name is Alice." }]);
    const router = new Router({
      model: routerModel,
      specialists: { chat: { description: "Talks.", agent: new Agent({ model: chatModel, store }) } },
    });
    const first = await router.run("My name is Alice.", { session: "alice" });
    expect(first).toMatchObject({ agent: "chat", output: "Hello Alice!" });
    const second = await router.run("What is my name?", { session: "alice" });
    expect(second.output).toBe("Your name is Alice.");
    // Both the router and the specialist saw the first turn.
    expect(routerModel.requests[1]?.messages.map((m) => m.content)).toEqual([
      "My name is Alice.",
      "Hello Alice!",
      "What is my name?",
    ]);
    expect(chatModel.requests[1]?.messages.map((m) => m.content)).toEqual([
      "My name is Alice.",
      "Hello Alice!",
      "What is my name?",
    ]);
    // The session holds the conversation, not the routing: no transfer calls in it.
    expect(await store.readSession("alice")).toEqual([
      { role: "user", content: "My name is Alice." },
      { role: "assistant", content: "Hello Alice!" },
      { role: "user", content: "What is my name?" },
      { role: "assistant", content: "Your name is Alice." },
    ]);
  });

  it("a routing run that fails leaves the session as it was: retries pile nothing up", async () => {
    const chatModel = new ScriptedModel([{ text: "fine" }]);
    let calls = 0;
    const routerModel = new FunctionModel(() =>
      calls++ < 2
        ? { error: "router provider down" }
        : { toolCalls: [{ name: "transfer_to_chat", args: {} }] },
    );
    const router = new Router({
      model: routerModel,
      specialists: { chat: { description: "Talks.", agent: new Agent({ model: chatModel, store }) } },
    });
    await expect(router.run("hi", { session: "s" })).rejects.toBeInstanceOf(ModelCallError);
    await expect(router.run("hi", { session: "s" })).rejects.toBeInstanceOf(ModelCallError);
    await expect(router.run("hi", { session: "s" })).resolves.toMatchObject({ output: "fine" });
    expect(await store.readSession("s")).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "fine" },
    ]);
  });

  it("a specialist that stops on the budget saves its turn as any agent session run does; no routing in it", async () => {
    const chatModel = new FunctionModel(() => ({
      toolCalls: [{ id: "t1", name: "transfer_to_chat", args: {} }],
      usage: { inputTokens: 50, outputTokens: 50 },
    }));
    const router = new Router({
      model: routesTo("chat"),
      specialists: { chat: { description: "Talks.", agent: new Agent({ model: chatModel, store }) } },
    });
    const error = await router
      .run("hi", { session: "s", limits: { maxTokens: 50 } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    const saved = await store.readSession("s");
    expectEveryCallAnswered(saved);
    // The specialist's own (unknown) call is answered; the router's transfer call is not in the session.
    expect(saved.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(saved[2]).toMatchObject({ role: "tool", toolCallId: "t1", isError: true });
  });

  it("refuses session and history together, and session with a handoff history other than full", async () => {
    const make = (history?: "input") =>
      new Router({
        model: routesTo("chat"),
        specialists: {
          chat: { description: "Talks.", agent: new Agent({ model: new ScriptedModel([]), store }) },
        },
        ...(history && { history }),
      });
    await expect(make().run("x", { session: "s", history: [] })).rejects.toBeInstanceOf(ConfigError);
    await expect(make("input").run("x", { session: "s" })).rejects.toThrowError(
      /history "input" cannot be combined with a session/,
    );
    expect(await store.listSessions()).toEqual([]);
  });
});

describe("Router limits: one budget for the whole routed run", () => {
  it("maxTokens binds router and specialist together", async () => {
    const specialistModel = new FunctionModel(() => ({
      text: "long answer",
      usage: { inputTokens: 50, outputTokens: 30 },
    }));
    const router = new Router({
      model: routesTo("chat", { inputTokens: 50, outputTokens: 30 }),
      specialists: { chat: { description: "Talks.", agent: new Agent({ model: specialistModel }) } },
    });
    const error = await router.run("x", { limits: { maxTokens: 100 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    // The numbers are the whole routed run's: 80 by the router, 80 by the specialist.
    expect(error).toMatchObject({ limit: "maxTokens", used: 160, max: 100 });
    expect((error as BudgetExceededError).usage.requests).toBe(2);
    expectEveryCallAnswered((error as BudgetExceededError).messages);
  });

  it("the specialist gets only what the router left: steps, tool calls, tokens", async () => {
    const seen: unknown[] = [];
    const router = new Router({
      model: routesTo("chat", { inputTokens: 30, outputTokens: 10 }),
      specialists: {
        chat: { description: "Talks.", agent: new Agent({ model: new ScriptedModel([{ text: "ok" }]) }) },
      },
      limits: { maxSteps: 5, maxTokens: 1_000 },
    });
    const result = await router.run("x", {
      limits: { maxToolCalls: 3 },
      onEvent: (e) => {
        if (e.type === "run_start") seen.push(e.limits);
      },
    });
    expect(result.output).toBe("ok");
    expect(seen).toEqual([
      { maxSteps: 5, maxTokens: 1_000, maxToolCalls: 3 },
      // The router's transfer call is a tool call; its step and 40 tokens are spent too.
      { maxSteps: 4, maxTokens: 960, maxToolCalls: 2 },
    ]);
  });

  it("a router limit config that is not a number >= 0 is a ConfigError", () => {
    expect(
      () =>
        new Router({
          model: routesTo("chat"),
          specialists: {
            chat: { description: "Talks.", agent: new Agent({ model: new ScriptedModel([]) }) },
          },
          limits: { maxTokens: -1 },
        }),
    ).toThrowError(ConfigError);
  });
});
