// What a trial's failure means: whether it could not start at all, the error to record, and the
// status it ends with. Kept apart from running the trial, which only hands over what it caught.

import { glassloopCodeOf } from "../core/errors.js";
import { ReplayDivergenceError } from "../entries/trace.js";
import { RunError } from "../index.js";
import { EvalBudgetError } from "./guarded-model.js";
import type { TrialError, TrialStatus } from "./types.js";

/** Error codes that say the run could not be set up, whatever the case. */
const SETUP_CODES = new Set(["config", "no_model", "missing_dependency"]);

/**
 * The error, or the run error's cause, when it says the trial could not start; else undefined.
 * By its code, so an error from a second copy of glassloop (an eval file loaded with the sources
 * beside the built CLI) still stops the eval instead of being scored.
 */
export function setupFailure(caught: unknown): Error | undefined {
  for (const candidate of [caught, caught instanceof Error ? caught.cause : undefined]) {
    const code = glassloopCodeOf(candidate);
    if (code !== undefined && SETUP_CODES.has(code)) return candidate as Error;
  }
  return undefined;
}

/** The error a trial records for what it caught (a divergence or a budget refusal named as such). */
export function errorOf(caught: unknown): TrialError {
  // A replay that diverged shows as a model failure of the run; the divergence is what matters.
  const cause = caught instanceof Error ? caught.cause : undefined;
  if (cause instanceof ReplayDivergenceError) {
    return {
      code: cause.code,
      message: cause.message,
      divergence: { call: cause.call, path: cause.path, recorded: cause.recorded, actual: cause.actual },
    };
  }
  if (cause instanceof EvalBudgetError) return { code: cause.code, message: cause.message };
  if (caught instanceof ReplayDivergenceError) {
    return {
      code: caught.code,
      message: caught.message,
      divergence: { call: caught.call, path: caught.path, recorded: caught.recorded, actual: caught.actual },
    };
  }
  if (caught instanceof Error) {
    const code = "code" in caught && typeof caught.code === "string" ? caught.code : "internal";
    return { code, message: caught.message };
  }
  return { code: "internal", message: String(caught) };
}

/** How a trial that caught an error ends: aborted, over its budget, or failed. */
export function statusOf(
  caught: unknown,
  evalAborted: boolean,
  overBudget: boolean,
  evalBound: boolean,
): TrialStatus {
  if (evalAborted) return "aborted";
  const refused = caught instanceof Error && caught.cause instanceof EvalBudgetError;
  // Stopped by what is left of the eval's money, not by the case's own limit: no evidence either way.
  if ((refused || overBudget) && evalBound) return "aborted";
  if (refused || overBudget) return "budget_exceeded";
  if (caught instanceof RunError && caught.code === "budget_exceeded") return "budget_exceeded";
  return "failed";
}
