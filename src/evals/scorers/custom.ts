import type { ScoreContext, ScoreResult, Scorer } from "../types.js";
import { graded, verdict } from "./result.js";

/** What a custom scorer function may return: a full result, a pass/fail, or a score in [0, 1]. */
export type CustomScore = ScoreResult | boolean | number;

/**
 * A scorer from a function of the trial. A boolean is pass/fail, a number a score that passes at
 * `threshold` (default 1), a `ScoreResult` is kept as is (its score clamped to [0, 1]).
 */
export function scorer<TOutput, TExpected>(
  name: string,
  fn: (context: ScoreContext<TOutput, TExpected>) => CustomScore | Promise<CustomScore>,
  options: { threshold?: number } = {},
): Scorer<TOutput, TExpected> {
  return {
    name,
    score: async (context) => {
      const value = await fn(context);
      if (typeof value === "boolean") return verdict(value, value ? "passed" : "failed");
      if (typeof value === "number") return graded(value, options.threshold ?? 1, `scored ${value}`);
      return { ...graded(value.score, 0, value.reason), pass: value.pass };
    },
  };
}
