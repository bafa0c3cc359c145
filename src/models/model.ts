import type { FallbackReason } from "../core/vocabulary/events.js";
import type { FinishReason, Message, ReasoningPart, ToolCall } from "../core/vocabulary/messages.js";
import type { TokenUsage } from "../core/vocabulary/usage.js";

/** JSON Schema as sent to providers (an object schema for tool parameters). */
export type JsonSchema = { [key: string]: unknown };

/** What the model is told about one tool. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** How the model may use tools in this request. */
export type ToolChoice = "auto" | "required" | "none" | { name: string };

/** Everything a model needs for one call; providers turn it into their wire format. */
export interface ModelRequest {
  /** The system prompt, kept apart because providers place it differently. */
  instructions?: string;
  /** The conversation, without the system message. */
  messages: Message[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
  /** Ask the provider to stream; deltas arrive through `ModelObserver.onDelta`. */
  stream?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  signal: AbortSignal;
}

/** A model's answer to one request. */
export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  usage: TokenUsage;
  finishReason: FinishReason;
  /** The model name the provider reports, when it reports one. */
  modelName?: string;
  /** The model's reasoning, kept for the next turn (see `ReasoningPart`). */
  reasoning?: ReasoningPart[];
  /** The response body as received (for streams: the assembled chunks), for traces. */
  raw?: unknown;
  /** The id of the model that answered, set by a model that chose among several (a fallback chain). */
  answeredBy?: string;
  /** The price of the model that answered, when it is not the calling model's `price`. */
  price?: ModelPrice;
}

/** Streaming pieces a model reports while it generates. */
export type ModelDelta =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; index: number; id?: string; name?: string; argumentsDelta: string };

/** Callbacks a model uses to show what it does; the loop turns them into events. */
export interface ModelObserver {
  /**
   * Called with the exact body right before it is sent (again on every retry); `model` names the
   * model it goes to when that is not the called one (a fallback chain's member).
   */
  onRequest(wire: { body: unknown; url?: string; attempt: number; model?: string }): void;
  onDelta?(delta: ModelDelta): void;
  /** A failed attempt will be retried: `attempt` is the next one's number, of at most `maxAttempts`. */
  onRetry?(info: RetryInfo): void;
  /** A fallback chain left a model for the next one (or had none left): which, and why. */
  onFallback?(info: FallbackInfo): void;
  /** A client-side rate limit holds the call back for `waitMs` before it is sent. */
  onRateLimitWait?(info: RateLimitWaitInfo): void;
  /**
   * Called before sending when the request leaves out reasoning another provider produced (it
   * cannot read it): `count` parts, made by the providers in `from`.
   */
  onReasoningDropped?(info: { count: number; from: string[] }): void;
}

/** What a model reports before it retries a failed attempt. */
export interface RetryInfo {
  /** The number of the attempt about to be made (2 for the first retry). */
  attempt: number;
  maxAttempts?: number;
  delayMs: number;
  /** The failure's message, redacted. */
  error: string;
  /** The wait the server asked for (`Retry-After`, `retry-after-ms`), when it asked. */
  retryAfterMs?: number;
  /** The typed failure, for a caller that decides on it (a fallback chain); never put in events. */
  cause?: Error;
  /** The model retrying, when it is not the called one (a fallback chain's member). */
  model?: string;
}

/** A fallback chain moved on from `from` to `to` (absent when none was left). */
export interface FallbackInfo {
  from: string;
  to?: string;
  reason: FallbackReason;
  /** The failure's message, redacted (for `circuit_open`: since when the breaker is open). */
  error: string;
  /** The HTTP status of the failure, when it had one. */
  status?: number;
  /** How long the chain spent on `from` before leaving it, in ms. */
  elapsedMs: number;
}

/** A client-side rate limit held a call back. */
export interface RateLimitWaitInfo {
  /** The model held back. */
  model: string;
  /** The limiter's key (`provider` or `provider:key-hint`). */
  key: string;
  /** Which limit was full: requests or tokens per minute, or concurrent requests. */
  limit: "rpm" | "tpm" | "concurrency";
  waitMs: number;
}

/** Price of a model in US dollars per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Price of cached input tokens; defaults to `inputPerMTok`. */
  cachedInputPerMTok?: number;
  /** Price of input tokens written to the cache (Anthropic: 1.25x input); defaults to `inputPerMTok`. */
  cacheWritePerMTok?: number;
}

/** The one interface every model provider implements. */
export interface Model {
  /** `provider:model`, e.g. `openai:gpt-4o-mini`; shown in events and traces. */
  readonly id: string;
  /** Known price, used for `usage.costUsd` and `limits.maxCostUsd`. */
  readonly price?: ModelPrice;
  /** Most tokens one request may hold (input and output); a request known to exceed it is refused before sending. */
  readonly contextWindow?: number;
  generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse>;
  /** The input tokens of `request` as the provider counts them (its count endpoint), where it has one. */
  countTokens?(request: ModelRequest): Promise<number>;
}

/** Cost in USD of `usage` at `price`: fresh input, cache reads and cache writes each at their rate. */
export function costOf(usage: TokenUsage, price: ModelPrice): number {
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteInputTokens ?? 0;
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok;
  const writePrice = price.cacheWritePerMTok ?? price.inputPerMTok;
  return (
    ((usage.inputTokens - cached - written) * price.inputPerMTok +
      cached * cachedPrice +
      written * writePrice +
      usage.outputTokens * price.outputPerMTok) /
    1_000_000
  );
}
