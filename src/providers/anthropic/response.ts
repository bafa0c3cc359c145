import type { FinishReason, ReasoningPart, ToolCall } from "../../core/vocabulary/messages.js";
import type { TokenUsage } from "../../core/vocabulary/usage.js";
import type { ModelResponse } from "../../models/model.js";
import { checkedTokenUsage, reportedCount } from "../../models/usage-check.js";
import { anthropicProtocolError } from "./protocol-error.js";
import type { AnthropicMessage, AnthropicUsage } from "./wire.js";

/** A non-streaming `/v1/messages` response body as glassloop's `ModelResponse`. */
export function fromAnthropicMessage(body: unknown): ModelResponse {
  const message = asMessage(body);
  let text = "";
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const block of message.content) {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "thinking" || block.type === "redacted_thinking") {
      const part = thinkingPart(block as unknown as Record<string, unknown>);
      if (!part) throw anthropicProtocolError(`a ${block.type} block has no signature or data`, body);
      reasoning.push(part);
    } else if (block.type === "tool_use") {
      const { id, name, input } = block as { id?: unknown; name?: unknown; input?: unknown };
      if (typeof name !== "string" || name === "")
        throw anthropicProtocolError("a tool_use block has no name", body);
      toolCalls.push({
        id: typeof id === "string" ? id : "",
        name,
        arguments: JSON.stringify(input ?? {}),
      });
    }
    // Server-tool blocks are not part of glassloop's transcript; they stay in `raw`.
  }
  return {
    text,
    toolCalls,
    usage: toTokenUsage(message.usage),
    finishReason: toFinishReason(message.stop_reason, toolCalls.length > 0),
    ...(typeof message.model === "string" && { modelName: message.model }),
    ...(reasoning.length > 0 && { reasoning }),
    raw: body,
  };
}

/**
 * A `thinking` or `redacted_thinking` block as a reasoning part, its signature (or data) kept
 * verbatim; `undefined` when the block lacks what must be sent back.
 */
export function thinkingPart(block: { type?: unknown; [key: string]: unknown }): ReasoningPart | undefined {
  if (block.type === "redacted_thinking") {
    if (typeof block.data !== "string") return undefined;
    return { type: "reasoning", provider: "anthropic", text: "", signature: block.data, redacted: true };
  }
  if (typeof block.signature !== "string" || typeof block.thinking !== "string") return undefined;
  return { type: "reasoning", provider: "anthropic", text: block.thinking, signature: block.signature };
}

/**
 * Anthropic's usage as `TokenUsage`. Anthropic counts cache reads and cache writes apart from
 * `input_tokens`; glassloop's `inputTokens` is everything the model read, with the reads also in
 * `cachedInputTokens` and the writes also in `cacheWriteInputTokens` (so `costOf` prices each at its rate).
 */
export function toTokenUsage(usage: AnthropicUsage | undefined): TokenUsage {
  // Every number through the one rule (models/usage-check.ts): a lying server is a protocol error.
  const count = (field: keyof AnthropicUsage) => reportedCount(usage?.[field], field, "anthropic");
  const cacheRead = count("cache_read_input_tokens");
  const cacheWrite = count("cache_creation_input_tokens");
  const inputTokens = count("input_tokens") + cacheRead + cacheWrite;
  return checkedTokenUsage(
    {
      inputTokens,
      outputTokens: count("output_tokens"),
      ...(cacheRead > 0 && { cachedInputTokens: cacheRead }),
      // Writes cost more than plain input (1.25x for the 5-minute cache); `costOf` prices them apart.
      ...(cacheWrite > 0 && { cacheWriteInputTokens: cacheWrite }),
    },
    "anthropic",
  );
}

/** Anthropic's `stop_reason` as a `FinishReason`. */
export function toFinishReason(stopReason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (stopReason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    case null:
    case undefined:
      return hasToolCalls ? "tool_calls" : "stop";
    default:
      // pause_turn and whatever Anthropic adds next.
      return "other";
  }
}

function asMessage(body: unknown): AnthropicMessage {
  if (body === null || typeof body !== "object" || !Array.isArray((body as AnthropicMessage).content)) {
    throw anthropicProtocolError("the response is not a message (no content list)", body);
  }
  return body as AnthropicMessage;
}
