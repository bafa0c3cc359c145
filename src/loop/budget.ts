import {
  LIMIT_DEFAULTS,
  type LimitName,
  type Limits,
  type RemainingBudget,
} from "../core/vocabulary/limits.js";
import type { UsageMeter } from "./usage.js";

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
