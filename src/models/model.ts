import type { FinishReason, Message, ReasoningPart, ToolCall } from "../vocabulary/messages.js";
import type { TokenUsage } from "../vocabulary/usage.js";

export type { FinishReason } from "../vocabulary/messages.js";
export type { TokenUsage } from "../vocabulary/usage.js";

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
}

/** Streaming pieces a model reports while it generates. */
export type ModelDelta =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; index: number; id?: string; name?: string; argumentsDelta: string };

/** Callbacks a model uses to show what it does; the loop turns them into events. */
export interface ModelObserver {
  /** Called with the exact body right before it is sent (again on every retry). */
  onRequest(wire: { body: unknown; url?: string; attempt: number }): void;
  onDelta?(delta: ModelDelta): void;
  /** A failed attempt will be retried: `attempt` is the next one's number, of at most `maxAttempts`. */
  onRetry?(info: { attempt: number; maxAttempts?: number; delayMs: number; error: string }): void;
  /**
   * Called before sending when the request leaves out reasoning another provider produced (it
   * cannot read it): `count` parts, made by the providers in `from`.
   */
  onReasoningDropped?(info: { count: number; from: string[] }): void;
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
  generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse>;
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
