import { Agent, type AgentEvent, type Message, type ModelResponse } from "glassloop";
import { FunctionModel } from "glassloop/testing";
import { buildRunView } from "glassloop/trace";
import { describe, expect, it } from "vitest";

describe("the run view of a reasoning, caching run", () => {
  it("keeps each step's reasoning, its cached and written input, and the note of reasoning left out", async () => {
    const response: ModelResponse = {
      text: "done",
      toolCalls: [],
      usage: {
        inputTokens: 100,
        cachedInputTokens: 60,
        cacheWriteInputTokens: 30,
        outputTokens: 9,
        reasoningTokens: 5,
      },
      finishReason: "stop",
      reasoning: [{ type: "reasoning", provider: "test", text: "thinking it over" }],
    };
    const model = new FunctionModel(() => ({ text: "unused" }));
    model.generate = async (request, observer) => {
      observer.onRequest({ body: {}, attempt: 1 });
      // A provider reports reasoning made elsewhere as left out.
      const foreign = request.messages.flatMap((m) => (m.role === "assistant" ? (m.reasoning ?? []) : []));
      if (foreign.length > 0) observer.onReasoningDropped?.({ count: foreign.length, from: ["anthropic"] });
      return response;
    };
    const history: Message[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "a",
        reasoning: [{ type: "reasoning", provider: "anthropic", text: "t", signature: "s" }],
      },
    ];
    const events: AgentEvent[] = [];
    await new Agent({ model }).run("next", { history, onEvent: (e) => events.push(e) });
    const step = buildRunView(events).steps[0];
    expect(step?.response?.reasoning).toEqual(response.reasoning);
    expect(step?.response?.usage).toMatchObject({
      cachedInputTokens: 60,
      cacheWriteInputTokens: 30,
      reasoningTokens: 5,
    });
    expect(step?.reasoningDropped).toEqual({ count: 1, from: ["anthropic"] });
    expect(buildRunView(events).unknownEvents).toBe(0);
  });
});
