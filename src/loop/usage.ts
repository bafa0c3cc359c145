import type { RunUsage, StepUsage, TokenUsage } from "../core/vocabulary/usage.js";
import { costOf, type ModelPrice } from "../models/model.js";
import { checkedCost, checkedRunUsage, checkedTokenUsage } from "../models/usage-check.js";

/** A fresh, all-zero usage record. */
export function emptyUsage(knownPrice: boolean): RunUsage {
  // Two whole literals, same key order. A spread followed by keys its source lacks
  // (`{ ...ZERO, steps }`) gives every record a hidden class of its own once V8 optimizes it, and
  // each later sum written into it generalizes a field of that class: microseconds per model call
  // (test/loop/hidden-classes.test.ts).
  return knownPrice
    ? {
        requests: 0,
        inputTokens: 0,
        outputTokens: 0,
        cachedInputTokens: 0,
        toolCalls: 0,
        durationMs: 0,
        costUsd: 0,
        steps: [],
      }
    : {
        requests: 0,
        inputTokens: 0,
        outputTokens: 0,
        cachedInputTokens: 0,
        toolCalls: 0,
        durationMs: 0,
        steps: [],
      };
}

/** Accumulates usage as the loop goes; `snapshot()` gives an independent copy. */
export class UsageMeter {
  readonly #usage: RunUsage;
  readonly #price: ModelPrice | undefined;
  readonly #started = performance.now();

  constructor(price: ModelPrice | undefined, carried?: RunUsage) {
    this.#price = price;
    this.#usage = carried ? structuredClone(carried) : emptyUsage(price !== undefined);
  }

  get totalTokens(): number {
    return this.#usage.inputTokens + this.#usage.outputTokens;
  }

  get costUsd(): number | undefined {
    return this.#usage.costUsd;
  }

  get toolCalls(): number {
    return this.#usage.toolCalls;
  }

  /** Steps (own model calls) so far; sub-agents' requests count in `requests` but not here. */
  get stepCount(): number {
    return this.#usage.steps.length;
  }

  get elapsedMs(): number {
    return performance.now() - this.#started;
  }

  startStep(step: number): void {
    // Assigned, not a conditional spread (its slow path, every step); same key order.
    const usage: StepUsage = {
      step,
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      toolCalls: 0,
      durationMs: 0,
    };
    if (this.#price) usage.costUsd = 0;
    this.#usage.steps.push(usage);
  }

  /**
   * Counts one model call; `source` names the model for the error when its usage breaks the rule
   * of models/usage-check.ts (then nothing is counted and a `ProviderProtocolError` is thrown);
   * `price` is the answering model's when it is not the run's (a fallback chain).
   */
  addModelCall(tokens: TokenUsage, source = "the model", price?: ModelPrice): void {
    checkedTokenUsage(tokens, source);
    const at = this.#price === undefined ? undefined : (price ?? this.#price);
    const cost = at ? checkedCost(costOf(tokens, at), "cost", source) : undefined;
    this.#usage.requests += 1;
    addCounts(this.#usage, tokens, 0, cost);
    addCounts(this.#current(), tokens, 0, cost);
  }

  /** Requests that brought no answer of their own: failed attempts, retried or final. */
  addRequests(count: number): void {
    this.#usage.requests += count;
  }

  addToolCall(): void {
    this.#usage.toolCalls += 1;
    this.#current().toolCalls += 1;
  }

  /**
   * Rolls a sub-run's usage (an agent used as a tool, an evaluator) into this run's totals and
   * current step. Usage that would shrink a total (negative, NaN, fractional counts, cached over
   * input) is a `ProviderProtocolError` and is not counted.
   */
  addSubRun(sub: RunUsage, source = "a sub-run"): void {
    checkedRunUsage(sub, source);
    this.#usage.requests += sub.requests;
    addCounts(this.#usage, sub, sub.toolCalls, sub.costUsd);
    addCounts(this.#current(), sub, sub.toolCalls, sub.costUsd);
  }

  endStep(durationMs: number): void {
    this.#current().durationMs = durationMs;
  }

  snapshot(): RunUsage {
    const usage = this.#usage;
    // Plain copies, not structuredClone: this runs at every run's end and every error, and the
    // records are flat objects of numbers.
    return { ...usage, durationMs: this.#duration(), steps: usage.steps.map((s) => ({ ...s })) };
  }

  /**
   * The totals so far with only the current step in `steps`: what a per-step event carries, so
   * its cost and size stay the same at step 1,000 as at step 1 (the full list is in `snapshot()`).
   */
  progress(): RunUsage {
    const usage = this.#usage;
    const current = usage.steps.at(-1);
    return { ...usage, durationMs: this.#duration(), steps: current ? [{ ...current }] : [] };
  }

  #duration(): number {
    return Math.round(this.#usage.durationMs + this.elapsedMs);
  }

  #current(): StepUsage {
    const step = this.#usage.steps.at(-1);
    if (!step) throw new Error("glassloop bug: usage recorded outside a step");
    return step;
  }
}

/** Adds tokens, tool calls and cost to one record, the run's totals or a step's: the same sums for both. */
function addCounts(
  into: RunUsage | StepUsage,
  tokens: TokenUsage,
  toolCalls: number,
  costUsd: number | undefined,
): void {
  into.inputTokens += tokens.inputTokens;
  into.outputTokens += tokens.outputTokens;
  into.cachedInputTokens += tokens.cachedInputTokens ?? 0;
  into.toolCalls += toolCalls;
  // The optional counts appear only once a provider reports them, so runs without stay as they were.
  if (tokens.cacheWriteInputTokens)
    into.cacheWriteInputTokens = (into.cacheWriteInputTokens ?? 0) + tokens.cacheWriteInputTokens;
  if (tokens.reasoningTokens) into.reasoningTokens = (into.reasoningTokens ?? 0) + tokens.reasoningTokens;
  if (costUsd !== undefined) into.costUsd = (into.costUsd ?? 0) + costUsd;
}
