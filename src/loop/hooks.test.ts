import { tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { composeHooks, NO_HOOKS } from "../agent/compose-hooks.js";
import { startRun } from "../agent/run-start.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { Message } from "../core/vocabulary/messages.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import type { RunHooks, RunState, StartPosition } from "./hooks.js";
import { type LoopSettings, runLoop } from "./loop.js";
import { emptyUsage, UsageMeter } from "./usage.js";

const ran: string[] = [];
const echo = tool({
  name: "echo",
  description: "Echoes.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => {
    ran.push(text);
    return text;
  },
});

/** A run's state and the loop's settings, built the way the agent builds them, with `hooks` attached. */
function runWith(
  model: ScriptedModel,
  hooks: RunHooks,
  messages: Message[] = [{ role: "user", content: "go" }],
  meter = new UsageMeter(undefined),
) {
  const events: AgentEvent[] = [];
  const { state, finish } = startRun<undefined>({
    runId: "run_hooks",
    model,
    registry: ToolRegistry.from([echo]) as ToolRegistry<undefined, unknown, boolean>,
    context: undefined,
    environment: undefined,
    limits: {},
    meter,
    messages,
    signal: undefined,
    listener: (e) => events.push(e),
  });
  state.hooks = hooks;
  const settings: LoopSettings = {
    agent: "test",
    input: "go",
    tools: () => state.environment.registry.specs(),
    endTools: [],
    textNotAllowed: "",
    stream: false,
  };
  const done = runLoop(state as RunState<unknown>, settings).finally(finish);
  return { state, events, done };
}

describe("composeHooks", () => {
  it("leaves every method no feature has absent, and gives a method one feature has as that feature's own", () => {
    expect(composeHooks([])).toBe(NO_HOOKS);
    expect(composeHooks([{}, {}])).toBe(NO_HOOKS);
    const seen: string[] = [];
    const feature: RunHooks = {
      afterTurn() {
        seen.push("afterTurn");
      },
    };
    const hooks = composeHooks([{}, feature]);
    expect(Object.keys(hooks)).toEqual(["afterTurn"]);
    hooks.afterTurn?.({} as RunState<unknown>, 1, { prepared: [], outcomes: [], resumed: false });
    expect(seen).toEqual(["afterTurn"]);
  });

  it("runs around hooks outermost first, each seeing what the one outside it passed on", async () => {
    const order: string[] = [];
    const outer: RunHooks = {
      modelCall: (_s, _step, request, next) => {
        order.push("outer");
        return next({ ...request, toolChoice: "required" });
      },
    };
    const inner: RunHooks = {
      modelCall: (_s, _step, request, next) => {
        order.push(`inner saw ${String(request.toolChoice)}`);
        return next(request);
      },
    };
    const hooks = composeHooks([outer, inner]);
    const response = await hooks.modelCall?.({} as RunState<unknown>, 1, { messages: [], tools: [] }, (r) => {
      order.push(`call with ${String(r.toolChoice)}`);
      return Promise.resolve({
        text: "",
        toolCalls: [],
        finishReason: "stop",
        usage: { inputTokens: 0, outputTokens: 0 },
      });
    });
    expect(response?.finishReason).toBe("stop");
    expect(order).toEqual(["outer", "inner saw required", "call with required"]);
  });

  it("chains decide: each feature sees the result the one before it returned", async () => {
    const hooks = composeHooks([
      { decide: async (_s, _step, r) => (r.kind === "done" ? { kind: "next", reviewed: true } : r) },
      {
        decide: async (_s, _step, r) =>
          r.kind === "next" && r.reviewed ? { kind: "next", unusable: "seen" } : r,
      },
    ]);
    const result = await hooks.decide?.({} as RunState<unknown>, 1, {
      kind: "done",
      outcome: { output: "x", finishedBy: "text" },
    });
    expect(result).toEqual({ kind: "next", unusable: "seen" });
  });
});

describe("the loop through its hooks", () => {
  it("reaches each hook in step order, and end once after run_end", async () => {
    const calls: string[] = [];
    const hooks: RunHooks = {
      start: async () => {
        calls.push("start");
        return undefined;
      },
      beforeModelCall: async (_s, step) => void calls.push(`beforeModelCall ${step}`),
      modelCall: (_s, step, request, next) => {
        calls.push(`modelCall ${step}`);
        return next(request);
      },
      afterResponse: async (_s, step, _a, finish) => void calls.push(`afterResponse ${step} ${finish}`),
      beforeTools: async (_s, step, prepared) => void calls.push(`beforeTools ${step} ${prepared.length}`),
      beforeConcurrentCalls: (_s, step) => void calls.push(`beforeConcurrentCalls ${step}`),
      toolCall: async (_s, step, ready, next) => {
        calls.push(`toolCall ${step} ${ready.call.id}`);
        return next();
      },
      afterTurn: (_s, step, turn) => void calls.push(`afterTurn ${step} ${turn.outcomes.length}`),
      decide: async (_s, step, result) => {
        calls.push(`decide ${step} ${result.kind}`);
        return result;
      },
      end: async (state, ending) => {
        calls.push(`end ${ending.ok} after ${state.messages.length} messages`);
      },
    };
    const model = new ScriptedModel([
      { toolCalls: [{ id: "c1", name: "echo", args: { text: "a" } }] },
      { text: "done" },
    ]);
    const { events, done } = runWith(model, hooks);
    await expect(done).resolves.toEqual({ output: "done", finishedBy: "text" });
    expect(calls).toEqual([
      "start",
      "beforeModelCall 1",
      "modelCall 1",
      "afterResponse 1 tool_calls",
      "beforeTools 1 1",
      "beforeConcurrentCalls 1",
      "toolCall 1 c1",
      "afterTurn 1 1",
      "decide 1 next",
      "beforeModelCall 2",
      "modelCall 2",
      "afterResponse 2 stop",
      "afterTurn 2 0",
      "decide 2 done",
      "end true after 4 messages",
    ]);
    expect(events.at(-1)?.type).toBe("run_end");
  });

  it("starts a resumed run at its position: the interrupted turn's known outcome is used, the other call runs, no model call first", async () => {
    ran.length = 0;
    const turn = {
      role: "assistant" as const,
      content: "",
      toolCalls: [
        { id: "k", name: "echo", arguments: JSON.stringify({ text: "known" }) },
        { id: "r", name: "echo", arguments: JSON.stringify({ text: "runs" }) },
      ],
    };
    const position: StartPosition = {
      step: 3,
      pendingTurn: {
        assistant: turn,
        finishReason: "tool_calls",
        calls: turn.toolCalls,
        known: new Map([["k", { status: "ok", content: "from the store", durationMs: 0 }]]),
      },
    };
    const model = new ScriptedModel([{ text: "finished" }]);
    // The stored usage of a run whose step 3 made its model call before the crash.
    const step = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, toolCalls: 0, durationMs: 0 };
    const meter = new UsageMeter(undefined, {
      ...emptyUsage(false),
      requests: 3,
      steps: [1, 2, 3].map((n) => ({ ...step, step: n })),
    });
    const { state, events, done } = runWith(
      model,
      { start: async () => position },
      [{ role: "user", content: "go" }, turn],
      meter,
    );
    await expect(done).resolves.toEqual({ output: "finished", finishedBy: "text" });
    expect(ran).toEqual(["runs"]);
    expect(state.messages.slice(2, 4)).toMatchObject([
      { role: "tool", toolCallId: "k", content: "from the store" },
      { role: "tool", toolCallId: "r", content: "runs" },
    ]);
    expect(
      events.filter((e) => e.type === "step_start").map((e) => e.type === "step_start" && e.step),
    ).toEqual([4]);
    expect(model.requests).toHaveLength(1);
  });

  it("decides a resumed text answer by the live step's rule: one cut off at the token limit is feedback, not the output", async () => {
    const cut = { role: "assistant" as const, content: "half an ans" };
    const model = new ScriptedModel([{ text: "a whole answer" }]);
    const { state, done } = runWith(
      model,
      {
        start: async () => ({
          step: 1,
          pendingTurn: { assistant: cut, finishReason: "length", calls: [], known: new Map() },
        }),
      },
      [{ role: "user", content: "go" }, cut],
    );
    await expect(done).resolves.toEqual({ output: "a whole answer", finishedBy: "text" });
    expect(state.messages[2]).toMatchObject({ role: "user", content: expect.stringMatching(/cut off/) });
  });
});
