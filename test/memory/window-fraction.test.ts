/**
 * `at`: memory strategies sized by a fraction of the model's context window instead of a fixed
 * token count. The same strategy trims more for a small window and less for a large one, a chain
 * takes its smallest window, and a model without a known window is a clear error, not "no limit".
 */
import { Agent, type AgentEvent, ConfigError, type Message, type Model } from "glassloop";
import { SummaryMemory, WindowMemory } from "glassloop/memory";
import { AnthropicModel, fallback } from "glassloop/models";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";

// About 24 messages of ~45 tokens each by the estimate (3.5 characters a token): ~1,100 tokens.
const history: Message[] = Array.from({ length: 12 }, (_, i): Message[] => [
  { role: "user", content: `question ${i}: ${"words ".repeat(25)}` },
  { role: "assistant", content: `answer ${i}: ${"more ".repeat(25)}` },
]).flat();

/** `inner` with a known context window, as a table entry or a `contextWindow` option gives one. */
function withWindow(inner: Model, contextWindow: number, id = inner.id): Model {
  return { id, contextWindow, generate: (request, observer) => inner.generate(request, observer) };
}

function contextEvents(): { events: AgentEvent[]; onEvent: (e: AgentEvent) => void } {
  const events: AgentEvent[] = [];
  return { events, onEvent: (e) => events.push(e) };
}

describe("WindowMemory({ at }) trims at a fraction of the model's window", () => {
  it("a large window sends everything; a small one trims to at × window", async () => {
    for (const [window, trimmed] of [
      [100_000, false],
      [1_000, true],
    ] as const) {
      const inner = new ScriptedModel([{ text: "done" }]);
      const agent = new Agent({ model: withWindow(inner, window), memory: new WindowMemory({ at: 0.8 }) });
      const { events, onEvent } = contextEvents();
      await agent.run("latest question", { history, onEvent });
      const sent = inner.requests[0]?.messages ?? [];
      const context = events.filter((e) => e.type === "context");
      if (!trimmed) {
        expect(sent).toHaveLength(history.length + 1);
        expect(context).toHaveLength(0);
        continue;
      }
      expect(sent.length).toBeLessThan(history.length + 1);
      expect(sent.at(-1)).toEqual({ role: "user", content: "latest question" });
      expect(context[0]).toMatchObject({ reason: "memory", total: history.length + 1 });
      // The view's tokens stay under 80% of the window, and near it (it is not trimmed further).
      const tokens = context[0]?.type === "context" ? context[0].tokens : 0;
      expect(tokens).toBeLessThanOrEqual(800);
      expect(tokens).toBeGreaterThan(600);
    }
  });

  it("with maxTokens too, the smaller ceiling wins", async () => {
    const inner = new ScriptedModel([{ text: "done" }]);
    const agent = new Agent({
      model: withWindow(inner, 100_000),
      memory: new WindowMemory({ at: 0.8, maxTokens: 300 }),
    });
    const { events, onEvent } = contextEvents();
    await agent.run("latest question", { history, onEvent });
    const context = events.find((e) => e.type === "context");
    expect(context?.type === "context" && context.tokens).toBeLessThanOrEqual(300);
  });

  it("a provider model's window comes from the price and window table", () => {
    const model = new AnthropicModel("claude-sonnet-4-5", { apiKey: "sk-ant-123456" });
    expect(model.contextWindow).toBe(200_000);
  });

  it("a fallback chain is sized by its smallest known window", async () => {
    const big = new ScriptedModel([{ text: "done" }]);
    const chain = fallback([
      withWindow(big, 100_000, "a:big"),
      withWindow(new ScriptedModel([]), 1_000, "b:small"),
    ]);
    expect(chain.contextWindow).toBe(1_000);
    const agent = new Agent({ model: chain, memory: new WindowMemory({ at: 0.8 }) });
    await agent.run("latest question", { history });
    // The first model answered, with a view that would also have fit the second one's window.
    expect(big.requests[0]?.messages.length).toBeLessThan(history.length + 1);
  });

  it("without a known window, `at` alone is a ConfigError that names the fixes; with maxTokens it uses that", async () => {
    const agent = new Agent({
      model: new ScriptedModel([{ text: "done" }]),
      memory: new WindowMemory({ at: 0.8 }),
    });
    const error = await agent.run("hi", { history }).catch((e: unknown) => e);
    expect(String((error as Error).message)).toMatch(
      /at: 0\.8 needs the model's context window.*contextWindow.*setModelInfo.*maxTokens/,
    );
    const inner = new ScriptedModel([{ text: "done" }]);
    const both = new Agent({ model: inner, memory: new WindowMemory({ at: 0.8, maxTokens: 300 }) });
    await both.run("latest question", { history });
    expect(inner.requests[0]?.messages.length).toBeLessThan(history.length + 1);
  });

  it("refuses options that set no ceiling or a fraction outside (0, 1]", () => {
    expect(() => new WindowMemory({})).toThrow(ConfigError);
    expect(() => new WindowMemory({})).toThrow(/maxTokens.*or at/);
    for (const at of [0, -0.5, 1.5, Number.NaN])
      expect(() => new SummaryMemory({ at })).toThrow(/at must be a fraction/);
    expect(() => new WindowMemory({ maxTokens: -1 })).toThrow(/maxTokens must be a positive number/);
    expect(new SummaryMemory({ at: 1 }).at).toBe(1);
  });
});

describe("SummaryMemory({ at }) summarizes once the transcript passes the fraction", () => {
  function summarizing(contextWindow: number) {
    const inner = new FunctionModel((request) =>
      request.tools.length === 0 && request.instructions?.includes("condense")
        ? { text: "They asked 12 questions." }
        : { text: "final answer" },
    );
    return { inner, model: withWindow(inner, contextWindow) };
  }
  const purposes = (events: AgentEvent[]) =>
    events.flatMap((e) => (e.type === "model_request" ? [e.purpose ?? "agent"] : []));

  it("under 80% of the window: no summary call; over it: one summary, then the agent's call", async () => {
    // ~1,100 tokens of history: 80% of 2,000 is 1,600 (fits); 80% of 1,200 is 960 (does not).
    for (const [window, expected] of [
      [2_000, ["agent"]],
      [1_200, ["summary", "agent"]],
    ] as const) {
      const { model } = summarizing(window);
      const agent = new Agent({ model, memory: new SummaryMemory({ at: 0.8, keepRecent: 2 }) });
      const { events, onEvent } = contextEvents();
      const result = await agent.run("and now?", { history, onEvent });
      expect(result.output).toBe("final answer");
      expect(purposes(events)).toEqual(expected);
    }
  });
});
