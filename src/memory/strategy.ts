import type { Message } from "../core/vocabulary/messages.js";
import type { Model, ToolSpec } from "../models/model.js";
import type { TokenCounter } from "./tokens.js";

/** A summarization request a strategy hands to the loop, which makes it a visible model call. */
export interface SummaryRequest {
  instructions: string;
  /** The text to summarize, rendered as one user message. */
  prompt: string;
  maxOutputTokens?: number;
  /** The model to summarize with; default the agent's. */
  model?: Model;
}

/** What a strategy gets for one model call. */
export interface MemoryContext {
  instructions?: string;
  tools: readonly ToolSpec[];
  tokens: TokenCounter;
  /**
   * A tighter token ceiling than the strategy's own, set when the provider rejected the last
   * request as too long (ContextOverflowError): the loop compacts once to it and retries.
   */
  limit?: number;
  /** The context window of the model the request goes to, when known (for ceilings such as `at: 0.8`). */
  contextWindow?: number;
  /** Runs a summarization model call; it shows up as model_request/model_response events with `purpose: "summary"`. */
  summarize(request: SummaryRequest): Promise<string>;
}

/**
 * Decides what part of the transcript the model sees on each call. The transcript itself is never
 * changed (it is what gets persisted and returned); only the view is trimmed or summarized, and
 * every view keeps each tool call together with its result.
 */
export interface MemoryStrategy {
  /** The view for the next model call: messages without the system prompt, in order. */
  select(messages: readonly Message[], context: MemoryContext): Promise<Message[]>;
}

/** Tokens the instructions and tool definitions take before any message. */
export function fixedTokens(context: Pick<MemoryContext, "instructions" | "tools" | "tokens">): number {
  return context.tokens.request({
    ...(context.instructions !== undefined && { instructions: context.instructions }),
    tools: context.tools,
    messages: [],
  });
}
