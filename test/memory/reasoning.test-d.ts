import type {
  AgentEvent,
  AssistantMessage,
  Message,
  ModelDelta,
  ModelResponse,
  ReasoningPart,
  RunUsage,
  TokenUsage,
} from "glassloop";
import { describe, expectTypeOf, it } from "vitest";

describe("the reasoning part in the types", () => {
  it("is a part of assistant messages only, discriminated by type, with optional opaque fields", () => {
    expectTypeOf<AssistantMessage["reasoning"]>().toEqualTypeOf<ReasoningPart[] | undefined>();
    expectTypeOf<ReasoningPart["type"]>().toEqualTypeOf<"reasoning">();
    expectTypeOf<ReasoningPart["text"]>().toEqualTypeOf<string>();
    expectTypeOf<ReasoningPart["signature"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ReasoningPart["anchor"]>().toEqualTypeOf<"text" | { toolCallId: string } | undefined>();
    const user: Message = { role: "user", content: "hi" };
    // @ts-expect-error reasoning belongs to assistant turns
    const bad: Message = { role: "user", content: "hi", reasoning: [] };
    expectTypeOf(user).not.toEqualTypeOf(bad);
  });

  it("flows through responses, deltas, events and usage", () => {
    expectTypeOf<ModelResponse["reasoning"]>().toEqualTypeOf<ReasoningPart[] | undefined>();
    expectTypeOf<Extract<ModelDelta, { type: "reasoning" }>>().toEqualTypeOf<{
      type: "reasoning";
      text: string;
    }>();
    expectTypeOf<Extract<AgentEvent, { type: "reasoning_delta" }>["text"]>().toEqualTypeOf<string>();
    expectTypeOf<Extract<AgentEvent, { type: "reasoning_dropped" }>["from"]>().toEqualTypeOf<string[]>();
    expectTypeOf<Extract<AgentEvent, { type: "model_response" }>["reasoning"]>().toEqualTypeOf<
      ReasoningPart[] | undefined
    >();
    expectTypeOf<TokenUsage["reasoningTokens"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<TokenUsage["cacheWriteInputTokens"]>().toEqualTypeOf<number | undefined>();
    expectTypeOf<RunUsage["reasoningTokens"]>().toEqualTypeOf<number | undefined>();
  });
});
