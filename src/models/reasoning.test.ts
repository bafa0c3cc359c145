import { Agent, type Message, type ModelResponse } from "glassloop";
import { parseHistory } from "glassloop/memory";
import { costOf } from "glassloop/models";
import { FunctionModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { ownReasoning, reportForeignReasoning } from "./reasoning.js";

const signed = { type: "reasoning", provider: "anthropic", text: "think", signature: "sig" } as const;
const encrypted = {
  type: "reasoning",
  provider: "openai-responses",
  text: "",
  signature: "gAAA",
  id: "rs_1",
} as const;
const turn: Message = { role: "assistant", content: "ok", reasoning: [signed, encrypted] };

describe("reasoning parts", () => {
  it("go back only to the provider that made them; the others are reported, once per request", () => {
    expect(ownReasoning(turn, "anthropic")).toEqual([signed]);
    expect(ownReasoning(turn, "google")).toEqual([]);
    expect(ownReasoning({ role: "user", content: "x" }, "anthropic")).toEqual([]);
    const seen: unknown[] = [];
    const observer = { onRequest() {}, onReasoningDropped: (info: unknown) => seen.push(info) };
    reportForeignReasoning([turn, turn], "anthropic", observer);
    reportForeignReasoning([turn], "google", observer);
    reportForeignReasoning([{ role: "user", content: "x" }], "google", observer);
    expect(seen).toEqual([
      { count: 2, from: ["openai-responses"] },
      { count: 2, from: ["anthropic", "openai-responses"] },
    ]);
  });

  it("survive JSON and history validation; a malformed part is a clear error", () => {
    const history = JSON.parse(JSON.stringify([{ role: "user", content: "q" }, turn])) as unknown;
    expect(parseHistory(history)).toEqual([{ role: "user", content: "q" }, turn]);
    const gemini = { ...signed, provider: "google", anchor: { toolCallId: "c1" } };
    expect(() => parseHistory([{ role: "assistant", content: "", reasoning: [gemini] }])).not.toThrow();
    expect(() =>
      parseHistory([{ role: "assistant", content: "", reasoning: [{ type: "thought" }] }]),
    ).toThrow(/Invalid history.*reasoning/);
  });

  it("land in the transcript, the model_response event, and usage with reasoning tokens", async () => {
    const response: ModelResponse = {
      text: "42",
      toolCalls: [],
      usage: { inputTokens: 10, outputTokens: 30, reasoningTokens: 25 },
      finishReason: "stop",
      reasoning: [signed],
    };
    const model = new FunctionModel(() => ({ text: "unused" }));
    model.generate = async (_request, observer) => {
      observer.onRequest({ body: {}, attempt: 1 });
      observer.onDelta?.({ type: "reasoning", text: "think" });
      return response;
    };
    const events: string[] = [];
    const result = await new Agent({ model }).run("q", { onEvent: (e) => events.push(e.type) });
    expect(result.messages.at(-1)).toEqual({ role: "assistant", content: "42", reasoning: [signed] });
    expect(result.usage.reasoningTokens).toBe(25);
    expect(result.usage.steps[0]?.reasoningTokens).toBe(25);
    expect(events).toContain("reasoning_delta");
  });
});

describe("costOf", () => {
  it("prices fresh input, cache reads, cache writes and output each at their rate", () => {
    const price = { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75, outputPerMTok: 15 };
    const usage = {
      inputTokens: 1_000_000,
      cachedInputTokens: 500_000,
      cacheWriteInputTokens: 250_000,
      outputTokens: 0,
    };
    expect(costOf(usage, price)).toBeCloseTo(0.25 * 3 + 0.5 * 0.3 + 0.25 * 3.75, 10);
    // Without a write price, writes cost plain input (and without any cache figures, all is fresh).
    expect(costOf(usage, { inputPerMTok: 3, outputPerMTok: 15 })).toBeCloseTo(3, 10);
    expect(costOf({ inputTokens: 0, outputTokens: 1_000_000, reasoningTokens: 900_000 }, price)).toBe(15);
  });
});
