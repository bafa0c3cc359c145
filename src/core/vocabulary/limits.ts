/** The budgets a run is held to, and what is left of them while it runs. */

/** Names of the limits a run can hit. */
export type LimitName = "maxSteps" | "maxToolCalls" | "maxTokens" | "maxCostUsd" | "timeoutMs";

/** Limits of one run. Every one is checked before each model call and each tool call. */
export interface Limits {
  /** Agent turns, i.e. the agent's own model calls (default 15); summary and compaction calls are not turns. */
  maxSteps?: number;
  /** Tool calls, counted across all steps. */
  maxToolCalls?: number;
  /** Input plus output tokens, from the usage the provider reports. */
  maxTokens?: number;
  /** Dollars, computed from the model's price (the model must have one). */
  maxCostUsd?: number;
  /** Wall-clock time of the run; aborts the model call or tools in flight. */
  timeoutMs?: number;
  /** Unusable model outputs in a row (bad tool calls, text where output is required) before giving up (default 3). */
  maxRetries?: number;
}

/** The defaults of `Limits`. */
export const LIMIT_DEFAULTS = { maxSteps: 15, maxRetries: 3 } as const;

/** What is left of a run's limits; absent fields are unlimited. */
export interface RemainingBudget {
  toolCalls?: number;
  tokens?: number;
  costUsd?: number;
  timeMs?: number;
}
