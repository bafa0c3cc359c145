import type { Environment } from "../environment/environment.js";
import { BudgetExceededError, RunAbortedError, type RunErrorState } from "../errors.js";
import type { Model } from "../models/model.js";
import type { AgentEvent, EventInit } from "../vocabulary/events.js";
import type { Message, ToolCall, ToolMessage } from "../vocabulary/messages.js";
import type { ToolOutcome } from "../vocabulary/outcome.js";
import type { Breach, Budget } from "./budget.js";
import type { RunHooks } from "./hooks.js";
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
  messages: Message[];
  /** Fires on the caller's abort and on `limits.timeoutMs`. */
  signal: AbortSignal;
  emit: (event: EventInit) => void;
  /** The run's features, composed once (hooks.ts): the loop calls only the methods present. */
  hooks: RunHooks;
}

/** The emitter of a run nobody listens to: hot paths compare with it to skip building events. */
export function silent(_event: EventInit): void {}

/** Whether anyone receives the run's events (building one is wasted work otherwise). */
export function listening(state: RunState<unknown>): boolean {
  return state.emit !== silent;
}

/** Stamps events with the run id and time and hands them to the listener (if there is none, does nothing). */
export function makeEmitter(
  runId: string,
  listener: ((event: AgentEvent) => void) | undefined,
): (event: EventInit) => void {
  if (!listener) return silent;
  return (event) => {
    // Stamped in place, not copied: every init is a fresh literal of the emitting code, and the
    // keys land in the same order a copy would give them.
    const stamped = event as EventInit & { runId: string; time: number };
    stamped.runId = runId;
    stamped.time = Date.now();
    try {
      listener(stamped as AgentEvent);
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
    // Node's timers run on the event loop's cached clock and can fire a fraction of a ms early.
    const used = Math.max(state.meter.elapsedMs, max);
    return new BudgetExceededError("timeoutMs", used, max, errorState(state));
  }
  return new RunAbortedError(errorState(state), reason);
}

/** Emits the `tool_call` event that comes before every call's `tool_result`, run or not. */
export function announceCall(state: RunState<unknown>, step: number, call: ToolCall): void {
  if (state.emit === silent) return;
  state.emit({
    type: "tool_call",
    step,
    toolCallId: call.id,
    toolName: call.name,
    arguments: call.arguments,
  });
}

/** Appends a tool result and emits its `tool_result` event. */
export function recordResult(
  state: RunState<unknown>,
  step: number,
  call: ToolCall,
  outcome: ToolOutcome,
): ToolMessage {
  // Assigned rather than spread in: same keys in the same order, without the slow literal path.
  const message: ToolMessage = {
    role: "tool",
    toolCallId: call.id,
    toolName: call.name,
    content: outcome.content,
  };
  if (outcome.status !== "ok") message.isError = true;
  // Checked when the result was made (or stored): only valid parts reach here.
  else {
    if (outcome.images) message.images = outcome.images;
    if (outcome.files) message.files = outcome.files;
  }
  if (state.emit === silent) return message;
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
 * transcript never holds an orphan, whatever ended the run. The result goes right after its
 * turn's other results (providers reject anything between a call and its result, e.g. the new
 * user message after a history that ended mid-turn), and pairing is per turn, because some
 * models reuse ids across turns.
 */
export function closeOpenCalls(state: RunState<unknown>, step: number, reason: string): void {
  const { messages } = state;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message?.role !== "assistant" || !message.toolCalls?.length) continue;
    const answered = new Set<string>();
    let end = i + 1;
    for (let next = messages[end]; next?.role === "tool"; next = messages[++end])
      answered.add(next.toolCallId);
    const results = message.toolCalls
      .filter((call) => !answered.has(call.id))
      .map((call) => {
        announceCall(state, step, call);
        return recordResult(state, step, call, {
          status: "not_executed",
          content: `Not executed: ${reason}.`,
        });
      });
    messages.splice(end, 0, ...results);
    i = end + results.length - 1;
  }
}
