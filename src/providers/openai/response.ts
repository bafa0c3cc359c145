import { packedMap } from "../../core/packed-map.js";
import type { FinishReason, ReasoningPart, ToolCall } from "../../core/vocabulary/messages.js";
import type { TokenUsage } from "../../core/vocabulary/usage.js";
import { errorForStatus, ProviderProtocolError } from "../../models/errors.js";
import type { ModelResponse } from "../../models/model.js";
import { checkedTokenUsage, reportedCount } from "../../models/usage-check.js";
import type { OpenAIQuirks } from "./quirks.js";
import type { ChatCompletion, ChatUsage } from "./wire.js";

/** Normalizes a non-streaming Chat Completions body into a `ModelResponse`. */
export function parseChatCompletion(body: unknown, provider: string, quirks: OpenAIQuirks): ModelResponse {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ProviderProtocolError(`${provider} response is not a JSON object`, { provider, body });
  const completion = body as ChatCompletion & { error?: unknown };
  if (completion.error !== undefined && completion.choices === undefined)
    throw errorForStatus({ provider, status: 200, body, excerpt: JSON.stringify(body).slice(0, 500) });
  const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!choice || typeof choice.message !== "object" || choice.message === null)
    throw new ProviderProtocolError(`${provider} response has no choices[0].message`, { provider, body });
  const message = choice.message;
  const toolCalls = packedMap(
    toolCallEntries(message.tool_calls, provider),
    (call): ToolCall => ({
      id: typeof call.id === "string" ? call.id : "",
      name: call.function?.name ?? "",
      arguments: argumentsText(call.function?.arguments),
    }),
  );
  const thinking = reasoningTextOf(message);
  // Assigned in the key order of a literal with conditional spreads, without its slow path: every call.
  const response: ModelResponse = {
    text: textOf(message.content, message.refusal),
    toolCalls: quirks.fillToolCallIds ? fillToolCallIds(toolCalls) : toolCalls,
    usage: usageOf(completion.usage, provider),
    finishReason: finishReasonOf(choice.finish_reason, toolCalls.length > 0),
  };
  if (typeof completion.model === "string") response.modelName = completion.model;
  if (thinking !== "") response.reasoning = [reasoningPart(provider, thinking)];
  response.raw = body;
  return response;
}

/** The reasoning text of a message or delta: `reasoning_content` (DeepSeek, vLLM, Ollama) or OpenRouter's `reasoning`. */
export function reasoningTextOf(message: {
  reasoning_content?: unknown;
  reasoning?: unknown;
  content?: unknown;
}): string {
  if (typeof message.reasoning_content === "string") return message.reasoning_content;
  if (typeof message.reasoning === "string") return message.reasoning;
  return partsText(message.content, "thinking");
}

/**
 * The text of a `content` that is a string, or a list of parts: Mistral's reasoning models send
 * `[{ type: "thinking", thinking: [{ type: "text", text }] }, { type: "text", text }]`.
 */
export function contentText(content: unknown): string {
  return typeof content === "string" ? content : partsText(content, "text");
}

/** The text of the parts of one kind in a list of content parts (nothing for anything else). */
function partsText(content: unknown, kind: "text" | "thinking"): string {
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const part of content as unknown[]) {
    if (typeof part !== "object" || part === null) continue;
    const { type, text, thinking } = part as { type?: unknown; text?: unknown; thinking?: unknown };
    if (type !== kind) continue;
    if (kind === "text" && typeof text === "string") out += text;
    if (kind === "thinking") out += typeof thinking === "string" ? thinking : partsText(thinking, "text");
  }
  return out;
}

/** A compatible server's reasoning as a transcript part (text only: nothing is signed). */
export function reasoningPart(provider: string, text: string): ReasoningPart {
  return { type: "reasoning", provider, text };
}

/**
 * The entries of a `tool_calls` array, each checked to be an object: a `null` or a string there is
 * the server breaking the protocol, reported once as such (a crash on it would be retried as if
 * the network had failed).
 */
export function toolCallEntries<T extends object>(
  value: readonly T[] | null | undefined,
  provider: string,
): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((c) => typeof c !== "object" || c === null || Array.isArray(c)))
    throw new ProviderProtocolError(`${provider} sent tool_calls that are not a list of objects`, {
      provider,
      excerpt: JSON.stringify(value).slice(0, 500),
    });
  return [...value];
}

/** The answer's text; a refusal (the model declined) is text the user must see too. */
export function textOf(content: unknown, refusal: unknown): string {
  const text = contentText(content);
  if (text !== "") return text;
  return typeof refusal === "string" ? refusal : "";
}

/** Token usage, cached prompt tokens included (OpenAI's field, or DeepSeek's). */
export function usageOf(usage: ChatUsage | null | undefined, provider: string): TokenUsage {
  // Every number through the one rule (models/usage-check.ts): a lying server is a protocol error.
  const inputTokens = reportedCount(usage?.prompt_tokens, "prompt_tokens", provider);
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? usage?.prompt_cache_hit_tokens;
  const cachedTokens = reportedCount(cached, "cached_tokens", provider);
  const completion = reportedCount(usage?.completion_tokens, "completion_tokens", provider);
  const reasoning = reportedCount(
    usage?.completion_tokens_details?.reasoning_tokens,
    "reasoning_tokens",
    provider,
  );
  // OpenAI and DeepSeek count reasoning inside completion_tokens; xAI counts it beside them, which
  // its total shows (prompt + completion + reasoning). Either way, output includes the reasoning.
  const beside = reasoning > 0 && usage?.total_tokens === inputTokens + completion + reasoning;
  const outputTokens = beside ? completion + reasoning : completion;
  const tokens: TokenUsage = { inputTokens, outputTokens };
  if (cachedTokens > 0) tokens.cachedInputTokens = cachedTokens;
  if (reasoning > 0) tokens.reasoningTokens = reasoning;
  return checkedTokenUsage(tokens, provider);
}

/** The normalized finish reason; a missing one with tool calls present means the calls. */
export function finishReasonOf(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case "stop":
    case "length":
    case "content_filter":
    case "tool_calls":
      return reason;
    case "function_call":
      return "tool_calls";
    case null:
    case undefined:
      return hasToolCalls ? "tool_calls" : "other";
    default:
      return "other";
  }
}

/** Arguments as the raw JSON text the loop expects; some servers send an object instead. */
export function argumentsText(args: unknown): string {
  if (typeof args === "string") return args;
  if (args === undefined || args === null) return "";
  return JSON.stringify(args);
}

/** A tool-call id that cannot collide with any other. */
export function freshToolCallId(): string {
  return `call_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

/** `calls` with every missing, empty or repeated id replaced by a fresh one. */
export function fillToolCallIds(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    const id = call.id && !seen.has(call.id) ? call.id : freshToolCallId();
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
