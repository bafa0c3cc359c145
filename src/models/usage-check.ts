import type { RunUsage, StepUsage, TokenUsage } from "../core/vocabulary/usage.js";
import { ProviderProtocolError } from "./errors.js";

/**
 * The one rule for numbers a model reports about itself: token counts (input, output, cached,
 * cache writes, reasoning) and the usage of a sub-run rolled into its parent. Every provider's
 * usage parsing reads its fields through `reportedCount` and hands its result to
 * `checkedTokenUsage`; the loop checks again what any `Model` returns (a user's own, a local one)
 * and what a sub-run adds, so a budget can only grow. A server that reports `-1e8`, `{}`, `NaN` or
 * more cached than input tokens would otherwise turn the run's counted tokens and cost negative or
 * NaN, and every comparison with `maxTokens`/`maxCostUsd` false.
 *
 * A server that omits usage altogether (no usage object, or `null`) is not lying: its counts read
 * as 0 and its cost as $0, never an estimate. Token and dollar limits cannot see such a server;
 * `maxSteps`, `maxToolCalls` and `timeoutMs` still bound the run (docs/security.md says so).
 */

/** The largest count accepted: far above any real call, low enough that sums stay exact. */
export const MAX_REPORTED_TOKENS = 2 ** 40;

/**
 * One token count as a provider sent it: absent (`undefined`/`null`) reads as 0; anything but a
 * whole number from 0 to `MAX_REPORTED_TOKENS` is a `ProviderProtocolError` naming the field.
 */
export function reportedCount(value: unknown, field: string, provider: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= MAX_REPORTED_TOKENS)
    return value;
  throw lie(provider, `${field} = ${shown(value)}`, "a token count must be a whole number of 0 or more");
}

/**
 * `usage` if its counts are whole, non-negative and consistent (cached plus cache writes at most
 * the input, reasoning at most the output); otherwise a `ProviderProtocolError`. Returns the same
 * object, so a provider can end its parsing with `return checkedTokenUsage({...}, provider)`.
 */
export function checkedTokenUsage(usage: TokenUsage, provider: string): TokenUsage {
  if (typeof usage !== "object" || usage === null)
    throw lie(provider, `usage = ${shown(usage)}`, "usage must be an object of token counts");
  const input = reportedCount(usage.inputTokens, "inputTokens", provider);
  const output = reportedCount(usage.outputTokens, "outputTokens", provider);
  // Required fields may not be absent: a model that reports no input at all says 0.
  if (usage.inputTokens === undefined || usage.outputTokens === undefined)
    throw lie(provider, `usage = ${shown(usage)}`, "inputTokens and outputTokens are required");
  const cached = reportedCount(usage.cachedInputTokens, "cachedInputTokens", provider);
  const written = reportedCount(usage.cacheWriteInputTokens, "cacheWriteInputTokens", provider);
  const reasoning = reportedCount(usage.reasoningTokens, "reasoningTokens", provider);
  // Cached and written tokens are priced below or apart from fresh input: more of them than input
  // would make the fresh part, and so the cost, negative.
  if (cached + written > input)
    throw lie(
      provider,
      `cached ${cached} + cache writes ${written} of ${input} input tokens`,
      "cached input tokens cannot exceed the input tokens",
    );
  if (reasoning > output)
    throw lie(
      provider,
      `${reasoning} reasoning of ${output} output tokens`,
      "reasoning tokens cannot exceed the output tokens",
    );
  return usage;
}

/** A cost in dollars as reported or computed: finite and 0 or more, or a `ProviderProtocolError`. */
export function checkedCost(value: number, field: string, provider: string): number {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
  throw lie(provider, `${field} = ${shown(value)}`, "a cost must be a finite number of 0 or more");
}

/**
 * A sub-run's usage (an agent used as a tool, a judge, a reflection) before it is rolled into a
 * parent: every count whole and non-negative, the cost finite and non-negative, per step and in
 * total. `source` names who reported it, for the error.
 */
export function checkedRunUsage(usage: RunUsage, source: string): RunUsage {
  checkRecord(usage, source);
  if (!Number.isInteger(usage.requests) || usage.requests < 0)
    throw lie(
      source,
      `requests = ${shown(usage.requests)}`,
      "a request count must be a whole number of 0 or more",
    );
  if (!Array.isArray(usage.steps)) throw lie(source, `steps = ${shown(usage.steps)}`, "steps must be a list");
  for (const step of usage.steps) checkRecord(step, source);
  return usage;
}

function checkRecord(record: RunUsage | StepUsage, source: string): void {
  checkedTokenUsage(record, source);
  if (!Number.isInteger(record.toolCalls) || record.toolCalls < 0)
    throw lie(
      source,
      `toolCalls = ${shown(record.toolCalls)}`,
      "a tool call count must be a whole number of 0 or more",
    );
  if (record.costUsd !== undefined) checkedCost(record.costUsd, "costUsd", source);
}

function lie(provider: string, what: string, rule: string): ProviderProtocolError {
  return new ProviderProtocolError(`${provider} reported impossible usage (${what}): ${rule}`, {
    provider,
    excerpt: what.slice(0, 500),
  });
}

/** A short, single-line rendering of a reported value for the error message. */
function shown(value: unknown): string {
  if (typeof value === "number") return String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
