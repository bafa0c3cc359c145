import type { ToolCallIdRules } from "../../models/tool-call-ids.js";

/**
 * What an OpenAI-compatible server does differently from OpenAI. Each preset declares its own;
 * nothing is ever inferred from the URL.
 */
export interface OpenAIQuirks {
  /** Send `stream_options: { include_usage: true }` when streaming (off for servers that reject it). */
  streamUsage: boolean;
  /** The field that carries the output token limit. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Replace missing, empty or repeated tool-call ids in responses with fresh unique ones. */
  fillToolCallIds: boolean;
  /**
   * Turn a `tool_use_failed` error (the server rejected the model's own tool call, as Groq does)
   * into that tool call, so the loop answers it with feedback and the model can fix it.
   */
  recoverToolUseFailed: boolean;
  /** What tool-call ids sent in a request must look like; others are rewritten consistently. */
  toolCallIds: ToolCallIdRules;
}

/** OpenAI's rule: ids up to 40 characters. Ids from other providers are rewritten to fit. */
export const OPENAI_TOOL_CALL_IDS: ToolCallIdRules = {
  allowedChar: /[A-Za-z0-9_.:-]/,
  maxLength: 40,
  prefix: "call_gl_",
};

/** OpenAI's own behaviour: the baseline every preset starts from. */
export const OPENAI_QUIRKS: Readonly<OpenAIQuirks> = Object.freeze({
  streamUsage: true,
  maxTokensField: "max_completion_tokens",
  fillToolCallIds: false,
  recoverToolUseFailed: false,
  toolCallIds: OPENAI_TOOL_CALL_IDS,
});

/** A generic OpenAI-compatible server: the older `max_tokens` field, ids filled in when missing. */
export const COMPATIBLE_QUIRKS: Readonly<OpenAIQuirks> = Object.freeze({
  ...OPENAI_QUIRKS,
  maxTokensField: "max_tokens",
  fillToolCallIds: true,
});
