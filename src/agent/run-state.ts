import type { Environment } from "../environment/environment.js";
import { BudgetExceededError, RunAbortedError, type RunErrorState } from "../errors.js";
import type { Message, ToolCall, ToolMessage } from "../memory/messages.js";
import { openToolCalls } from "../memory/messages.js";
import type { Model } from "../models/model.js";
import type { Breach, Budget } from "./budget.js";
import type { AgentEvent, EventInit, ToolOutcomeStatus } from "./events.js";
import type { LoopGuard } from "./loop-guard.js";
import type { UsageMeter } from "./usage.js";

/** Why the run's abort signal fired because of a limit rather than the caller. */
export class RunTimeout extends Error {}

/** Everything one run shares between the loop and the turn handler. */
export interface RunState<TContext> {
  runId: string;
  model: Model;
  environment: Environment<TContext>;
  budget: Budget;
  meter: UsageMeter;
  guard: LoopGuard | undefined;
  messages: Message[];
  /** Fires on the caller's abort and on `limits.timeoutMs`. */
  signal: AbortSignal;
  emit: (event: EventInit) => void;
}

/** Stamps events with the run id and time and hands them to the listener. */
export function makeEmitter(
  runId: string,
  listener: (event: AgentEvent) => void,
): (event: EventInit) => void {
  return (event) => {
    const stamped = { ...event, runId, time: Date.now() } as AgentEvent;
    try {
      listener(stamped);
    } catch (error) {
      // A broken listener must not break invariants mid-turn; it is reported, not fatal.
      process.emitWarning(`glassloop: an event listener threw: ${String(error)}`);
    }
  };
}

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
  const reason: unknown = state.signal.reason;
  if (reason instanceof RunTimeout) {
    const max = state.budget.limits.timeoutMs ?? 0;
    return new BudgetExceededError("timeoutMs", state.meter.elapsedMs, max, errorState(state));
  }
  return new RunAbortedError(errorState(state), reason);
}

/** Appends a tool result and emits its `tool_result` event. */
export function recordResult(
  state: RunState<unknown>,
  step: number,
  call: ToolCall,
  outcome: { status: ToolOutcomeStatus; content: string; durationMs?: number; errorDetail?: string },
): ToolMessage {
  const message: ToolMessage = {
    role: "tool",
    toolCallId: call.id,
    toolName: call.name,
    content: outcome.content,
    ...(outcome.status !== "ok" && { isError: true }),
  };
  state.emit({
    type: "tool_result",
    step,
    toolCallId: call.id,
    toolName: call.name,
    status: outcome.status,
    content: outcome.content,
    durationMs: outcome.durationMs ?? 0,
    ...(outcome.errorDetail !== undefined && { errorDetail: outcome.errorDetail }),
  });
  return message;
}

/**
 * Invariant 1 on every exit path: each call still without a result gets an explicit one, so the
 * transcript never holds an orphan, whatever ended the run.
 */
export function closeOpenCalls(state: RunState<unknown>, step: number, reason: string): void {
  for (const call of openToolCalls(state.messages)) {
    state.emit({
      type: "tool_call",
      step,
      toolCallId: call.id,
      toolName: call.name,
      arguments: call.arguments,
    });
    state.messages.push(
      recordResult(state, step, call, { status: "not_executed", content: `Not executed: ${reason}.` }),
    );
  }
}
