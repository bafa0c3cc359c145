import { ConfigError } from "../errors.js";
import type { Model } from "../models/model.js";
import { LIMIT_DEFAULTS, type LimitName, type Limits, type RemainingBudget } from "../vocabulary/limits.js";
import type { UsageMeter } from "./usage.js";

export { LIMIT_DEFAULTS, type Limits, type RemainingBudget } from "../vocabulary/limits.js";

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

/** A limit that was reached. */
export interface Breach {
  limit: LimitName;
  used: number;
  max: number;
}

/** Compares the run's usage with its limits. */
export class Budget {
  constructor(
    readonly limits: Limits,
    private readonly meter: UsageMeter,
  ) {}

  /** A breach that forbids another model call, if any. */
  beforeModelCall(): Breach | undefined {
    const maxSteps = this.limits.maxSteps ?? LIMIT_DEFAULTS.maxSteps;
    // Own model calls only: a sub-agent's requests roll up into usage but are bounded by its own limits.
    const steps = this.meter.stepCount;
    if (steps >= maxSteps) return { limit: "maxSteps", used: steps, max: maxSteps };
    return this.spent(true) ?? this.clock();
  }

  /**
   * A breach that forbids a model call the loop makes within a step besides the agent's own (a
   * summary, the retry after a context overflow), if any. `maxSteps` counts agent turns, and the
   * step this call serves was counted already; tokens, dollars and time bind it like any call.
   */
  beforeSideCall(): Breach | undefined {
    return this.spent(true) ?? this.clock();
  }

  /** A breach that forbids another tool call, if any. */
  beforeToolCall(): Breach | undefined {
    const { maxToolCalls } = this.limits;
    if (maxToolCalls !== undefined && this.meter.toolCalls >= maxToolCalls) {
      return { limit: "maxToolCalls", used: this.meter.toolCalls, max: maxToolCalls };
    }
    return this.spent(true) ?? this.clock();
  }

  /**
   * Tokens and cost after a response: a response that pushed the run past its ceiling ends it,
   * even when the answer looks final, because the budget is a promise to the caller.
   */
  afterModelCall(): Breach | undefined {
    return this.spent(false);
  }

  /** What is left of each limit now: the ceiling for a sub-agent run inside this one. */
  remaining(): RemainingBudget {
    const { maxToolCalls, maxTokens, maxCostUsd, timeoutMs } = this.limits;
    const left: RemainingBudget = {};
    if (maxToolCalls !== undefined) left.toolCalls = Math.max(0, maxToolCalls - this.meter.toolCalls);
    if (maxTokens !== undefined) left.tokens = Math.max(0, maxTokens - this.meter.totalTokens);
    if (maxCostUsd !== undefined) left.costUsd = Math.max(0, maxCostUsd - (this.meter.costUsd ?? 0));
    if (timeoutMs !== undefined) left.timeMs = Math.max(0, timeoutMs - this.meter.elapsedMs);
    return left;
  }

  private spent(atLimit: boolean): Breach | undefined {
    const { maxTokens, maxCostUsd } = this.limits;
    const tokens = this.meter.totalTokens;
    if (maxTokens !== undefined && over(tokens, maxTokens, atLimit))
      return { limit: "maxTokens", used: tokens, max: maxTokens };
    const cost = this.meter.costUsd;
    if (maxCostUsd !== undefined && cost !== undefined && over(cost, maxCostUsd, atLimit)) {
      return { limit: "maxCostUsd", used: cost, max: maxCostUsd };
    }
    return undefined;
  }

  private clock(): Breach | undefined {
    const { timeoutMs } = this.limits;
    const elapsed = this.meter.elapsedMs;
    if (timeoutMs !== undefined && elapsed >= timeoutMs)
      return { limit: "timeoutMs", used: elapsed, max: timeoutMs };
    return undefined;
  }
}

/** Whether `used` breaks `max`: reaching it counts before a call, only passing it after one. */
function over(used: number, max: number, atLimit: boolean): boolean {
  return atLimit ? used >= max : used > max;
}
