/**
 * Joins a run's features into the one hooks object the loop reads (the agent does it once per
 * run): each method of the result calls the features that have it, in order.
 */

import type { ToolOutcome } from "../core/vocabulary/outcome.js";
import type { CallAnswers, RunHooks, StartPosition, StepRequest, TurnStop } from "../loop/hooks.js";
import type { ModelResponse } from "../models/model.js";

/** No feature at all: the loop calls nothing. */
export const NO_HOOKS: RunHooks = Object.freeze({});

/**
 * One object for a run's features, in the order given (the first is the outermost around hook).
 * A method none of them has stays absent, and one only a single feature has is that feature's
 * own method, so the loop's `if (hooks.x)` costs nothing for what is not there.
 */
export function composeHooks(features: readonly RunHooks[]): RunHooks {
  const hooks: RunHooks = {};
  const having = <K extends keyof RunHooks>(key: K) => withMethod(hooks, features, key);
  const start = having("start");
  if (start)
    hooks.start = async (state) => {
      let position: StartPosition | undefined;
      for (const f of start) position = (await f.start?.(state)) ?? position;
      return position;
    };
  const beforeModel = having("beforeModelCall");
  if (beforeModel)
    hooks.beforeModelCall = sequence(beforeModel, (f, state, step) => f.beforeModelCall?.(state, step));
  const model = having("modelCall");
  if (model)
    hooks.modelCall = (state, step, request, next) => {
      const at = (i: number, r: StepRequest): Promise<ModelResponse> => {
        const f = model[i];
        return f?.modelCall ? f.modelCall(state, step, r, (n) => at(i + 1, n)) : next(r);
      };
      return at(0, request);
    };
  const afterResponse = having("afterResponse");
  if (afterResponse)
    hooks.afterResponse = sequence(afterResponse, (f, state, step, assistant, finishReason) =>
      f.afterResponse?.(state, step, assistant, finishReason),
    );
  const beforeTools = having("beforeTools");
  if (beforeTools)
    hooks.beforeTools = async (state, step, prepared, answered) => {
      const view = [...answered];
      const answers = new Map<number, ToolOutcome>();
      for (const f of beforeTools) take(view, answers, await f.beforeTools?.(state, step, prepared, view));
      return answers;
    };
  const concurrent = having("beforeConcurrentCalls");
  if (concurrent)
    hooks.beforeConcurrentCalls = (state, step, prepared, answered) => {
      const view = [...answered];
      const answers = new Map<number, ToolOutcome>();
      let stop: TurnStop | undefined;
      // The first stop wins; the features after it are not asked.
      for (const f of concurrent) {
        const decision = f.beforeConcurrentCalls?.(state, step, prepared, view);
        take(view, answers, decision?.answers);
        stop = decision?.stop;
        if (stop) break;
      }
      return stop ? { answers, stop } : { answers };
    };
  const tool = having("toolCall");
  if (tool)
    hooks.toolCall = (state, step, ready, next) => {
      const at = (i: number): Promise<ToolOutcome> => {
        const f = tool[i];
        return f?.toolCall ? f.toolCall(state, step, ready, () => at(i + 1)) : next();
      };
      return at(0);
    };
  const side = having("sideStep");
  if (side)
    hooks.sideStep = <T>(
      state: Parameters<NonNullable<RunHooks["sideStep"]>>[0],
      name: string,
      next: () => Promise<T>,
    ) => {
      const at = (i: number): Promise<T> => {
        const f = side[i];
        return f?.sideStep ? f.sideStep(state, name, () => at(i + 1)) : next();
      };
      return at(0);
    };
  const afterTurn = having("afterTurn");
  if (afterTurn)
    hooks.afterTurn = (state, step, turn) => {
      for (const f of afterTurn) f.afterTurn?.(state, step, turn);
    };
  const pauseForInput = having("pauseForInput");
  if (pauseForInput)
    // Each feature in turn; the first that answers in place ends the pause.
    hooks.pauseForInput = async (state, step, turn) => {
      for (const f of pauseForInput) {
        const answered = await f.pauseForInput?.(state, step, turn);
        if (answered) return answered;
      }
      return undefined;
    };
  const decide = having("decide");
  if (decide)
    hooks.decide = async (state, step, result) => {
      let decided = result;
      for (const f of decide) decided = (await f.decide?.(state, step, decided)) ?? decided;
      return decided;
    };
  const end = having("end");
  if (end) hooks.end = sequence(end, (f, state, ending) => f.end?.(state, ending));
  return Object.keys(hooks).length === 0 ? NO_HOOKS : hooks;
}

/**
 * The features that have method `key`, when more than one has it. When exactly one has it, its own
 * method, bound, goes into `hooks` (no wrapper to pass through every step). Built once per run for
 * every hook name: a loop, not a filtered array per name.
 */
function withMethod<K extends keyof RunHooks>(
  hooks: RunHooks,
  features: readonly RunHooks[],
  key: K,
): RunHooks[] | undefined {
  let only: RunHooks | undefined;
  let found: RunHooks[] | undefined;
  for (const f of features) {
    if (typeof f[key] !== "function") continue;
    if (only === undefined) only = f;
    else if (found) found.push(f);
    else found = [only, f];
  }
  if (found) return found;
  if (only) hooks[key] = (only[key] as (...args: never[]) => unknown).bind(only) as never;
  return undefined;
}

/** Adds a feature's answers to those of the features before it; an answered call keeps its first answer. */
function take(
  view: (ToolOutcome | undefined)[],
  answers: Map<number, ToolOutcome>,
  more: CallAnswers | undefined,
) {
  if (!more) return;
  for (const [i, outcome] of more) {
    if (view[i] !== undefined) continue;
    view[i] = outcome;
    answers.set(i, outcome);
  }
}

/** A method that calls each feature's in turn, awaiting each. */
function sequence<A extends unknown[]>(
  features: RunHooks[],
  call: (feature: RunHooks, ...args: A) => Promise<void> | void | undefined,
): (...args: A) => Promise<void> {
  return async (...args) => {
    for (const f of features) await call(f, ...args);
  };
}
