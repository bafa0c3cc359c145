import { BudgetExceededError, ConfigError, RunError } from "../core/errors.js";
import { fenceFor } from "../core/prompt-fence.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { RemainingBudget } from "../core/vocabulary/limits.js";
import type { Message } from "../core/vocabulary/messages.js";
import type { RunUsage } from "../core/vocabulary/usage.js";
import type { RunHooks, RunState } from "../loop/hooks.js";
import { abortError, budgetError, errorState } from "../loop/run-state.js";
import type { Model } from "../models/model.js";

/** An evaluator's judgement of a candidate final answer. */
export type Verdict = { accept: true } | { accept: false; feedback: string };

/** What an evaluator sees. */
export interface Candidate {
  input: string;
  output: unknown;
  messages: readonly Message[];
}

/** What an evaluator may use: the run's signal and remaining budget, and ways to account for its own model calls. */
export interface EvaluatorTools {
  signal: AbortSignal;
  /** What is left of the run's limits: the ceiling for any model call the evaluator makes. */
  remaining: RemainingBudget;
  addUsage(usage: RunUsage): void;
  forward(event: AgentEvent): void;
}

/**
 * Judges a candidate answer: a plain function, or `modelEvaluator(...)` for a model call.
 * `models` lists the models it calls, so `maxCostUsd` can require their prices up front.
 */
export type Evaluator = ((candidate: Candidate, tools: EvaluatorTools) => Verdict | Promise<Verdict>) & {
  readonly models?: readonly Model[];
};

/** Reflection: an evaluator accepts the candidate answer or sends the agent back with feedback. */
export interface ReflectOptions {
  evaluator: Evaluator;
  /** Rejections allowed before the run fails (default 2). */
  maxRounds?: number;
}

/** Throws a ConfigError for a `maxRounds` that is not a whole number >= 0 (`Infinity`: no limit). */
export function checkReflect(reflect: ReflectOptions): void {
  const { maxRounds } = reflect;
  if (maxRounds === undefined) return;
  if (!(maxRounds >= 0 && (Number.isInteger(maxRounds) || maxRounds === Number.POSITIVE_INFINITY)))
    throw new ConfigError(
      `reflect.maxRounds must be a whole number >= 0 (or Infinity for no limit), got ${String(maxRounds)}`,
    );
}

/** The message that sends the agent back after a rejection. */
export function rejectionFeedback(feedback: string): string {
  // A model reviewer read the candidate (and what the tools brought in): its words are fenced too.
  const fence = fenceFor("feedback", [feedback]);
  return `A reviewer rejected your answer. ${fence.rule}\n${fence.wrap(feedback)}\nRevise your work and answer again.`;
}

/**
 * Reflection as a run feature: a final answer goes to the evaluator first; a rejected one becomes
 * feedback for the model and the run goes on (past `maxRounds` rejections it fails).
 */
export function reflectionHooks(reflect: ReflectOptions, input: string): RunHooks {
  let rounds = 0;
  return {
    async decide(state, _step, result) {
      if (result.kind !== "done") return result;
      const verdict = await judge(state, reflect, input, result.outcome.output, ++rounds);
      if (verdict.accept) return result;
      state.messages.push({ role: "user", content: rejectionFeedback(verdict.feedback) });
      return { kind: "next", reviewed: true };
    },
  };
}

/** Asks the evaluator about a candidate answer; past `maxRounds` rejections the run fails. */
export async function judge(
  state: RunState<unknown>,
  reflect: ReflectOptions,
  input: string,
  output: unknown,
  round: number,
): Promise<Verdict> {
  let verdict: Verdict;
  try {
    verdict = await reflect.evaluator(
      { input, output, messages: state.messages },
      {
        signal: state.stop.signal,
        remaining: state.budget.remaining(),
        addUsage: (usage) => state.meter.addSubRun(usage),
        forward: (event) =>
          state.emit({ type: "nested", step: 0, toolCallId: "", toolName: "evaluator", event }),
      },
    );
  } catch (error) {
    throw evaluatorError(state, error);
  }
  // The evaluator's spending is the run's: an accepted answer past a limit is still a budget stop.
  const breach = state.budget.afterModelCall();
  if (breach) throw budgetError(state, breach);
  state.emit({
    type: "reflection",
    round,
    accept: verdict.accept,
    ...(!verdict.accept && { feedback: verdict.feedback }),
  });
  const maxRounds = reflect.maxRounds ?? 2;
  if (!verdict.accept && round > maxRounds) {
    throw new RunError(
      "rejected",
      `The evaluator rejected the answer ${round} times (maxRounds ${maxRounds}); last feedback: ${verdict.feedback}`,
      errorState(state),
    );
  }
  return verdict;
}

/** The run's error for a failed evaluator: the run's abort or budget stop, else the failure with the run's state. */
function evaluatorError(state: RunState<unknown>, error: unknown): unknown {
  if (state.stop.aborted) return abortError(state);
  // A judge stopped by its ceiling (what the run had left) is the run's budget stop, also when
  // the run is exactly at a limit rather than past it.
  const breach =
    state.budget.afterModelCall() ??
    (error instanceof BudgetExceededError ? state.budget.beforeSideCall() : undefined);
  if (breach) return budgetError(state, breach);
  if (error instanceof RunError)
    return new RunError(error.code, `The evaluator failed: ${error.message}`, errorState(state), {
      cause: error,
    });
  return error;
}
