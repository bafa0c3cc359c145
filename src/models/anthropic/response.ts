import type { ToolCall } from "../../memory/messages.js";
import type { FinishReason, ModelResponse, TokenUsage } from "../model.js";
import { anthropicProtocolError } from "./protocol-error.js";
import type { AnthropicMessage, AnthropicUsage } from "./wire.js";

/** A non-streaming `/v1/messages` response body as glassloop's `ModelResponse`. */
export function fromAnthropicMessage(body: unknown): ModelResponse {
  const message = asMessage(body);
  let text = "";
  const toolCalls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text" && typeof block.text === "string") text += block.text;
    else if (block.type === "tool_use") {
      const { id, name, input } = block as { id?: unknown; name?: unknown; input?: unknown };
      if (typeof name !== "string" || name === "")
        throw anthropicProtocolError("a tool_use block has no name", body);
      toolCalls.push({
        id: typeof id === "string" ? id : "",
        name,
        arguments: JSON.stringify(input ?? {}),
      });
    }
    // Thinking and server-tool blocks are not part of glassloop's transcript; they stay in `raw`.
  }
  return {
    text,
    toolCalls,
    usage: toTokenUsage(message.usage),
    finishReason: toFinishReason(message.stop_reason, toolCalls.length > 0),
    ...(typeof message.model === "string" && { modelName: message.model }),
    raw: body,
  };
}

/**
 * Anthropic's usage as `TokenUsage`. Anthropic counts cache reads and cache writes apart from
 * `input_tokens`; glassloop's `inputTokens` is everything the model read, with the reads also in
 * `cachedInputTokens` (so `costOf` prices them at the cached rate).
 */
export function toTokenUsage(usage: AnthropicUsage | undefined): TokenUsage {
  const cacheRead = count(usage?.cache_read_input_tokens);
  const inputTokens = count(usage?.input_tokens) + cacheRead + count(usage?.cache_creation_input_tokens);
  return {
    inputTokens,
    outputTokens: count(usage?.output_tokens),
    ...(cacheRead > 0 && { cachedInputTokens: cacheRead }),
  };
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

function count(n: number | null | undefined): number {
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0;
}
