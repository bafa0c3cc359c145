/**
 * What one model call reports while it runs: the exact request, retries and fallbacks, a client
 * rate limit's wait, the streamed pieces (text, reasoning, tool-call arguments) and the answer.
 * Part of `AgentEvent`; import them from events.ts, which re-exports them.
 */
import type { FinishReason, ReasoningPart, ToolCall } from "./messages.js";
import type { TokenUsage } from "./usage.js";

/** Fields every event carries (the loop stamps them; see `EventInit`). */
export interface EventBase {
  runId: string;
  /** Milliseconds since the epoch. */
  time: number;
}

/** The exact body sent to the model (again on each retry). */
export interface ModelRequestEvent extends EventBase {
  type: "model_request";
  step: number;
  model: string;
  attempt: number;
  url?: string;
  /** The JSON body as it went over the wire (for test doubles: the normalized request). */
  body: unknown;
  /** Set for calls the loop makes besides the agent's own, e.g. `summary` for SummaryMemory. */
  purpose?: "summary";
}

/** A model call is being retried after a transient failure. */
export interface ModelRetryEvent extends EventBase {
  type: "model_retry";
  step: number;
  /** The number of the attempt about to be made (2 for the first retry). */
  attempt: number;
  /** The most attempts the model's retry policy allows, when it says. */
  maxAttempts?: number;
  delayMs: number;
  error: string;
}

/** Why a fallback chain did not take a model's answer. */
export type FallbackReason =
  | "rate_limited"
  | "overloaded"
  | "server_error"
  | "timeout"
  | "network"
  | "circuit_open"
  | "user_rule";

/**
 * A fallback chain did not take `from`'s answer and moved on to `to` (absent: none was left);
 * `reason` says why (a 429, an overload, a 5xx, a timeout, a network failure, an open circuit
 * breaker, or the user's `on` rule).
 */
export interface ModelFallbackEvent extends EventBase {
  type: "model_fallback";
  step: number;
  from: string;
  to?: string;
  reason: FallbackReason;
  error: string;
  status?: number;
  /** Milliseconds spent on `from`. */
  elapsedMs: number;
  purpose?: "summary";
}

/** A client-side rate limit (requests, tokens or concurrency per provider and key) held the call back. */
export interface RateLimitWaitEvent extends EventBase {
  type: "rate_limit_wait";
  step: number;
  model: string;
  key: string;
  limit: "rpm" | "tpm" | "concurrency";
  waitMs: number;
  purpose?: "summary";
}

/** The model's answer, raw and normalized. */
export interface ModelResponseEvent extends EventBase {
  type: "model_response";
  step: number;
  /** The model that answered, when a fallback chain chose it (its id, e.g. `openai:gpt-4o`). */
  model?: string;
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: TokenUsage;
  latencyMs: number;
  /** The model's reasoning, as kept in the transcript (and sent back to the same provider). */
  reasoning?: ReasoningPart[];
  raw?: unknown;
  /** Set for calls the loop makes besides the agent's own, e.g. `summary` for SummaryMemory. */
  purpose?: "summary";
}

/** A piece of text while the model streams. */
export interface TextDeltaEvent extends EventBase {
  type: "text_delta";
  step: number;
  text: string;
}

/** A piece of the model's reasoning while it streams (thinking text or its summary). */
export interface ReasoningDeltaEvent extends EventBase {
  type: "reasoning_delta";
  step: number;
  text: string;
}

/**
 * A piece of a tool call's arguments while the model streams them. `index` tells the calls of one
 * response apart; `toolCallId` and `toolName` come with the piece that first carries them. The
 * whole, final call is in `model_response`, which is what runs.
 */
export interface ToolCallDeltaEvent extends EventBase {
  type: "tool_call_delta";
  step: number;
  index: number;
  toolCallId?: string;
  toolName?: string;
  argumentsDelta: string;
}

/**
 * The request left out reasoning that another provider produced (the transcript moved between
 * providers, and the new one cannot read the old one's thinking or signatures).
 */
export interface ReasoningDroppedEvent extends EventBase {
  type: "reasoning_dropped";
  step: number;
  /** Reasoning parts left out. */
  count: number;
  /** The providers that produced them. */
  from: string[];
}

/** The events of one model call, as `AgentEvent` includes them. */
export type ModelCallEvent =
  | ModelRequestEvent
  | ModelRetryEvent
  | ModelFallbackEvent
  | RateLimitWaitEvent
  | ModelResponseEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ToolCallDeltaEvent
  | ReasoningDroppedEvent;
