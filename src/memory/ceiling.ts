/**
 * How many tokens a memory strategy lets a request take: a fixed `maxTokens`, a fraction `at` of
 * the model's context window, or the smaller of both; always under a ceiling a context overflow
 * forced. Sized by the window, one strategy fits every model it is used with, and a fallback
 * chain's smallest window.
 */
import { ConfigError } from "../core/errors.js";
import type { MemoryContext } from "./strategy.js";

/** The token ceiling options every trimming strategy takes; at least one of them is required. */
export interface CeilingOptions {
  /** The most tokens a request may take: instructions, tool definitions and messages together. */
  maxTokens?: number;
  /**
   * A fraction of the model's context window (above 0, at most 1), e.g. `0.8`: the strategy trims
   * or summarizes once a request would pass 80% of the window, leaving the rest for the answer.
   * With `maxTokens` too, the smaller ceiling wins.
   */
  at?: number;
}

/** A strategy's validated ceiling options. */
export interface Ceiling {
  readonly maxTokens?: number;
  readonly at?: number;
}

/** Validates the ceiling options of `owner` (e.g. `WindowMemory`). */
export function checkCeiling(options: CeilingOptions | undefined, owner: string): Ceiling {
  const { maxTokens, at } = options ?? {};
  if (maxTokens === undefined && at === undefined)
    throw new ConfigError(
      `${owner}: pass maxTokens (a token count) or at (a fraction of the model's context window, e.g. 0.8)`,
    );
  if (
    maxTokens !== undefined &&
    (typeof maxTokens !== "number" || !Number.isFinite(maxTokens) || maxTokens <= 0)
  )
    throw new ConfigError(`${owner}: maxTokens must be a positive number, got ${JSON.stringify(maxTokens)}`);
  if (at !== undefined && (typeof at !== "number" || !(at > 0 && at <= 1)))
    throw new ConfigError(`${owner}: at must be a fraction above 0 and at most 1, got ${JSON.stringify(at)}`);
  return { ...(maxTokens !== undefined && { maxTokens }), ...(at !== undefined && { at }) };
}

/**
 * The ceiling for one call: the smallest of `maxTokens`, `at` × the model's window and the
 * overflow limit. `at` with a model whose window is unknown is a ConfigError naming the fixes,
 * never a silent "no limit".
 */
export function ceilingFor(
  ceiling: Ceiling,
  context: Pick<MemoryContext, "contextWindow" | "limit">,
  owner: string,
): number {
  let max = ceiling.maxTokens ?? Number.POSITIVE_INFINITY;
  if (ceiling.at !== undefined) {
    const window = context.contextWindow;
    if (window === undefined) {
      if (ceiling.maxTokens === undefined)
        throw new ConfigError(
          `${owner}: at: ${ceiling.at} needs the model's context window, which is not known for this model; pass contextWindow when building the model, setModelInfo("provider:model", { window }), or maxTokens`,
        );
    } else max = Math.min(max, Math.floor(window * ceiling.at));
  }
  return Math.min(max, context.limit ?? Number.POSITIVE_INFINITY);
}
