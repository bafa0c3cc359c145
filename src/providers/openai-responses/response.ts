import type { FinishReason, ReasoningPart, ToolCall } from "../../core/vocabulary/messages.js";
import type { TokenUsage } from "../../core/vocabulary/usage.js";
import { errorForStatus, ProviderProtocolError } from "../../models/errors.js";
import type { ModelResponse } from "../../models/model.js";
import { checkedTokenUsage, reportedCount } from "../../models/usage-check.js";
import { RESPONSES_PROVIDER } from "./request.js";
import type {
  ResponsesOutputItem,
  ResponsesReasoningItem,
  ResponsesResponse,
  ResponsesUsage,
} from "./wire.js";

/** A Responses API body (non-streamed, or the final `response` of a stream) as a `ModelResponse`. */
export function fromResponsesBody(body: unknown, provider: string): ModelResponse {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new ProviderProtocolError(`${provider} response is not a JSON object`, { provider, body });
  const response = body as ResponsesResponse;
  if (response.status === "failed" || (response.error && response.output === undefined)) {
    throw errorForStatus({
      provider,
      status: 200,
      body: { error: response.error ?? { message: "the response failed" } },
      excerpt: JSON.stringify(response.error ?? body).slice(0, 500),
    });
  }
  if (!Array.isArray(response.output))
    throw new ProviderProtocolError(`${provider} response has no output list`, { provider, body });
  let text = "";
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const item of response.output) {
    if (item === null || typeof item !== "object")
      throw new ProviderProtocolError(`${provider} response has an output item that is not an object`, {
        provider,
        body,
      });
    if (item.type === "message")
      text += messageText(item as Extract<ResponsesOutputItem, { type: "message" }>);
    else if (item.type === "function_call") {
      const call = item as { call_id?: unknown; name?: unknown; arguments?: unknown };
      if (typeof call.name !== "string" || call.name === "")
        throw new ProviderProtocolError(`${provider} sent a function_call without a name`, {
          provider,
          body,
        });
      toolCalls.push({
        id: typeof call.call_id === "string" ? call.call_id : "",
        name: call.name,
        arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
      });
    } else if (item.type === "reasoning") reasoning.push(...reasoningParts(item as ResponsesReasoningItem));
    // Built-in tool items (web search, file search) are not glassloop's; they stay in `raw`.
  }
  return {
    text,
    toolCalls,
    usage: usageOf(response.usage, provider),
    finishReason: finishReasonOf(response, toolCalls.length > 0),
    ...(typeof response.model === "string" && { modelName: response.model }),
    ...(reasoning.length > 0 && { reasoning }),
    raw: body,
  };
}

/** A reasoning item as parts: one per summary (sharing the item's id), the encrypted chain on the first. */
export function reasoningParts(item: ResponsesReasoningItem): ReasoningPart[] {
  const summaries = Array.isArray(item.summary) ? item.summary : [];
  const texts =
    summaries.length > 0 ? summaries.map((s) => (typeof s?.text === "string" ? s.text : "")) : [""];
  return texts.map((text, i) => {
    const part: ReasoningPart = { type: "reasoning", provider: RESPONSES_PROVIDER, text };
    if (typeof item.id === "string") part.id = item.id;
    if (i === 0 && typeof item.encrypted_content === "string") part.signature = item.encrypted_content;
    return part;
  });
}

/** Usage with cached input and reasoning output. */
export function usageOf(usage: ResponsesUsage | null | undefined, provider: string): TokenUsage {
  // Every number through the one rule (models/usage-check.ts): a lying server is a protocol error.
  const inputTokens = reportedCount(usage?.input_tokens, "input_tokens", provider);
  const outputTokens = reportedCount(usage?.output_tokens, "output_tokens", provider);
  const cached = reportedCount(usage?.input_tokens_details?.cached_tokens, "cached_tokens", provider);
  const reasoning = reportedCount(
    usage?.output_tokens_details?.reasoning_tokens,
    "reasoning_tokens",
    provider,
  );
  return checkedTokenUsage(
    {
      inputTokens,
      outputTokens,
      ...(cached > 0 && { cachedInputTokens: cached }),
      ...(reasoning > 0 && { reasoningTokens: reasoning }),
    },
    provider,
  );
}

function finishReasonOf(response: ResponsesResponse, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return "tool_calls";
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    if (reason === "max_output_tokens") return "length";
    if (reason === "content_filter") return "content_filter";
    return "other";
  }
  return response.status === "completed" || response.status === undefined ? "stop" : "other";
}

function messageText(item: Extract<ResponsesOutputItem, { type: "message" }>): string {
  let text = "";
  for (const part of item.content ?? []) {
    if (part.type === "output_text" && typeof part.text === "string") text += part.text;
    // A refusal is the answer the user must see.
    else if (part.type === "refusal" && typeof part.refusal === "string") text += part.refusal;
  }
  return text;
}
