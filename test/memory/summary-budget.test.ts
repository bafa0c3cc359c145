import {
  Agent,
  type AgentEvent,
  BudgetExceededError,
  ContextOverflowError,
  type Message,
  RunAbortedError,
  tool,
} from "glassloop";
import { SummaryMemory } from "glassloop/memory";
import { FunctionModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectEveryCallAnswered } from "../helpers/core.js";

// Long enough that SummaryMemory({ maxTokens: 400 }) summarizes on the first call.
const history: Message[] = Array.from({ length: 12 }, (_, i): Message[] => [
  { role: "user", content: `question ${i}: ${"words ".repeat(30)}` },
  { role: "assistant", content: `answer ${i}: ${"more ".repeat(30)}` },
]).flat();

const echo = tool({
  name: "echo",
  description: "Echoes.",
  input: z.object({ s: z.string() }),
  run: ({ s }) => s,
});

/** A model that summarizes when asked (no tools) and otherwise calls echo `turns - 1` times, then answers. */
function summarizingModel(turns: number) {
  let agentTurns = 0;
  return new FunctionModel((request) => {
    if (request.tools.length === 0)
      return { text: "They asked 12 questions.", usage: { inputTokens: 50, outputTokens: 5 } };
    agentTurns++;
    return agentTurns < turns
      ? {
          toolCalls: [{ name: "echo", args: { s: `turn ${agentTurns}` } }],
          usage: { inputTokens: 10, outputTokens: 2 },
        }
      : { text: "final answer", usage: { inputTokens: 10, outputTokens: 2 } };
  });
}

const purposes = (events: AgentEvent[]) =>
  events
    .filter((e) => e.type === "model_request")
    .map((e) => (e.type === "model_request" ? (e.purpose ?? "agent") : ""));

describe("summary and compaction calls vs the step budget: maxSteps counts agent turns only", () => {
  it("a summary call at the last allowed step does not use up maxSteps", async () => {
    const model = summarizingModel(1);
    const agent = new Agent({
      model,
      tools: [echo],
      memory: new SummaryMemory({ maxTokens: 400, keepRecent: 2 }),
      limits: { maxSteps: 1 },
    });
    const events: AgentEvent[] = [];
    const result = await agent.run("and now?", { history, onEvent: (e) => events.push(e) });
    expect(result.output).toBe("final answer");
    expect(purposes(events)).toEqual(["summary", "agent"]);
    // The summary is a real request: it counts in requests and tokens, in the step it served.
    expect(result.usage.requests).toBe(2);
    expect(result.usage.steps).toHaveLength(1);
    expect(result.usage.inputTokens).toBe(60);
  });

  it("a summary call at an early step does not count toward maxSteps either", async () => {
    const model = summarizingModel(3);
    const agent = new Agent({
      model,
      tools: [echo],
      memory: new SummaryMemory({ maxTokens: 400, keepRecent: 2 }),
      limits: { maxSteps: 3 },
    });
    const events: AgentEvent[] = [];
    const result = await agent.run("and now?", { history, onEvent: (e) => events.push(e) });
    expect(result.output).toBe("final answer");
    expect(purposes(events).filter((p) => p === "agent")).toHaveLength(3);
    expect(purposes(events).filter((p) => p === "summary").length).toBeGreaterThanOrEqual(1);
    expect(result.usage.steps).toHaveLength(3);
    expect(result.usage.requests).toBe(events.filter((e) => e.type === "model_response").length);
  });

  it("a compaction retry after a context overflow at the last allowed step does not use up maxSteps", async () => {
    const model = new FunctionModel((request) =>
      request.messages.length > 20
        ? { error: new ContextOverflowError("prompt is too long", { provider: "test", status: 400 }) }
        : { text: "fits now" },
    );
    const agent = new Agent({ model, limits: { maxSteps: 1 } });
    const result = await agent.run("last", { history });
    expect(result.output).toBe("fits now");
    expect(model.requests).toHaveLength(2);
    expect(result.usage.steps).toHaveLength(1);
  });

  it("summary tokens count toward maxTokens: they can end the run", async () => {
    const model = summarizingModel(2);
    const agent = new Agent({
      model,
      tools: [echo],
      memory: new SummaryMemory({ maxTokens: 400, keepRecent: 2 }),
      // The agent's own two turns take 24 tokens; with the summary's 55 the run passes 60.
      limits: { maxTokens: 60 },
    });
    const error = await agent.run("and now?", { history }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "maxTokens", max: 60 });
    expectEveryCallAnswered((error as BudgetExceededError).messages);
  });

  it("a summary model that ignores its signal cannot hold an aborted run", async () => {
    const summarizer = new FunctionModel(() => new Promise(() => {}));
    const model = new FunctionModel(() => ({ text: "never" }));
    const agent = new Agent({
      model,
      memory: new SummaryMemory({ maxTokens: 400, keepRecent: 2, model: summarizer }),
    });
    const controller = new AbortController();
    let abortedAt = 0;
    const run = agent.run("and now?", {
      history,
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "model_request" && e.purpose === "summary")
          setTimeout(() => {
            abortedAt = performance.now();
            controller.abort(new Error("stop"));
          }, 5);
      },
    });
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
    expect(model.requests).toHaveLength(0);
  });
});
