import { BudgetExceededError, RunAbortedError, type RunErrorState } from "../core/errors.js";
import type { EventInit } from "../core/vocabulary/events.js";
import type { Breach } from "./budget.js";
import type { RunState } from "./hooks.js";

/** Why the run's abort signal fired because of a limit rather than the caller. */
export class RunTimeout extends Error {}

/** The emitter of a run nobody listens to: hot paths compare with it to skip building events. */
export function silent(_event: EventInit): void {}

/** The state attached to an error that ends the run. */
export function errorState(state: RunState<unknown>): RunErrorState {
  return { runId: state.runId, messages: state.messages, usage: state.meter.snapshot() };
}

/** A BudgetExceededError for `breach`, with the run's state. */
export function budgetError(state: RunState<unknown>, breach: Breach): BudgetExceededError {
  return new BudgetExceededError(breach.limit, breach.used, breach.max, errorState(state));
}

/** The error for a fired run signal: the timeout limit or the caller's abort. */
export function abortError(state: RunState<unknown>): BudgetExceededError | RunAbortedError {
  const reason: unknown = state.stop.reason;
  if (reason instanceof RunTimeout) {
    const max = state.budget.limits.timeoutMs ?? 0;
    // Node's timers run on the event loop's cached clock and can fire a fraction of a ms early.
    const used = Math.max(state.meter.elapsedMs, max);
    return new BudgetExceededError("timeoutMs", used, max, errorState(state));
  }
  return new RunAbortedError(errorState(state), reason);
}
