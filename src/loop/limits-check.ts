import { ConfigError } from "../core/errors.js";
import type { Limits, RemainingBudget } from "../core/vocabulary/limits.js";
import type { Model } from "../models/model.js";

const COUNTS = new Set<keyof Limits>(["maxSteps", "maxToolCalls", "maxRetries"]);

/**
 * Throws a ConfigError for a limit that is not a number >= 0 (counts: whole numbers); `Infinity`
 * means no limit. A NaN would otherwise compare false forever and silently lift the limit.
 */
export function checkLimits(limits: Limits, where = "limits"): void {
  for (const [key, value] of Object.entries(limits) as [keyof Limits, unknown][]) {
    if (value === undefined) continue;
    const count = COUNTS.has(key);
    const ok =
      typeof value === "number" &&
      value >= 0 &&
      (count ? Number.isInteger(value) || value === Number.POSITIVE_INFINITY : !Number.isNaN(value));
    if (!ok) {
      throw new ConfigError(
        `${where}.${key} must be ${count ? "a whole number" : "a number"} >= 0 (or Infinity for no limit), got ${String(value)}`,
      );
    }
  }
}

/** A model a run calls besides its own (a sub-agent's, an evaluator's), with where it is used. */
export interface OtherModel {
  model: Model;
  /** For the error message, e.g. `sub-agent tool "research"`. */
  via: string;
}

/**
 * A dollar limit needs a price to count against: refuse it up front rather than never enforce it.
 * The same rule holds for every model the run would call: a sub-agent or evaluator without a
 * price would spend uncounted dollars inside the limit.
 */
export function checkCostLimit(
  limits: Limits,
  model: Model,
  others: () => readonly OtherModel[] = none,
): void {
  if (limits.maxCostUsd === undefined) return;
  if (model.price === undefined) {
    throw new ConfigError(
      `limits.maxCostUsd is set but model "${model.id}" has no known price; give the model a price or drop the limit`,
    );
  }
  for (const other of others()) {
    if (other.model.price !== undefined) continue;
    throw new ConfigError(
      `limits.maxCostUsd is set but model "${other.model.id}" (${other.via}) has no known price; give the model a price or drop the limit`,
    );
  }
}

const none = (): readonly OtherModel[] => [];

/** Each limit of `base`, lowered to `extra`'s where `extra` is stricter. */
export function tightenLimits(base: Limits, extra: Limits | undefined): Limits {
  if (!extra) return base;
  const merged: Limits = { ...base };
  for (const key of Object.keys(extra) as (keyof Limits)[]) {
    const value = extra[key];
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = current === undefined ? value : Math.min(current, value);
  }
  return merged;
}

/** What is left of a run's budget as the limits of a run inside it (a sub-agent, an evaluator). */
export function limitsWithin(left: RemainingBudget): Limits {
  const limits: Limits = {};
  if (left.toolCalls !== undefined) limits.maxToolCalls = left.toolCalls;
  if (left.tokens !== undefined) limits.maxTokens = left.tokens;
  if (left.costUsd !== undefined) limits.maxCostUsd = left.costUsd;
  if (left.timeMs !== undefined) limits.timeoutMs = left.timeMs;
  return limits;
}
