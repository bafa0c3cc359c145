/** What a run spent: tokens per model call, and per step and in total for a run. */

/** Token counts of one model call, normalized across providers. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (a subset of `inputTokens`). */
  cachedInputTokens?: number;
  /** Input tokens written to the provider's prompt cache (a subset of `inputTokens`; Anthropic prices them apart). */
  cacheWriteInputTokens?: number;
  /** Output tokens the model spent reasoning (a subset of `outputTokens`, priced as output). */
  reasoningTokens?: number;
}

/** Usage of one step (one model call and the tool calls it asked for). */
export interface StepUsage {
  step: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** Input tokens written to the prompt cache (a subset of `inputTokens`); set once there are some. */
  cacheWriteInputTokens?: number;
  /** Output tokens spent reasoning (a subset of `outputTokens`); set once there are some. */
  reasoningTokens?: number;
  toolCalls: number;
  durationMs: number;
  /** Undefined when the model's price is unknown. */
  costUsd?: number;
}

/** Usage of a whole run: totals plus one entry per step. */
export interface RunUsage {
  /** Requests sent to models: every attempt, the failed and the retried ones included. */
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** Input tokens written to the prompt cache (a subset of `inputTokens`); set once there are some. */
  cacheWriteInputTokens?: number;
  /** Output tokens spent reasoning (a subset of `outputTokens`); set once there are some. */
  reasoningTokens?: number;
  toolCalls: number;
  durationMs: number;
  /** Undefined when the model's price is unknown. */
  costUsd?: number;
  steps: StepUsage[];
}
