import type { ToolCall } from "../../core/vocabulary/messages.js";
import { errorFields } from "../../models/errors.js";
import type { ModelResponse } from "../../models/model.js";
import { argumentsText, freshToolCallId } from "./response.js";

/**
 * The tool call inside a `tool_use_failed` error body (Groq rejects a call that does not match its
 * schema and returns the model's attempt as `failed_generation`), or `undefined` when the body is
 * not one or the attempt cannot be read as a call.
 */
export function failedToolCall(body: unknown): ToolCall | undefined {
  if (errorFields(body).code !== "tool_use_failed") return undefined;
  const error = (body as { error?: { failed_generation?: unknown } }).error;
  const generation = error?.failed_generation;
  if (typeof generation !== "string") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(generation);
  } catch {
    return undefined;
  }
  const attempt = (Array.isArray(parsed) ? parsed[0] : parsed) as {
    name?: unknown;
    arguments?: unknown;
  } | null;
  if (typeof attempt?.name !== "string" || attempt.name === "") return undefined;
  return { id: freshToolCallId(), name: attempt.name, arguments: argumentsText(attempt.arguments ?? {}) };
}

/** The response that stands for a recovered `tool_use_failed` error: just the model's call. */
export function recoveredResponse(call: ToolCall, raw: unknown, text = ""): ModelResponse {
  return {
    text,
    toolCalls: [call],
    usage: { inputTokens: 0, outputTokens: 0 },
    finishReason: "tool_calls",
    raw,
  };
}
