import type { EvaluateOptions } from "./evaluate.js";

/** What an eval file exports (default export) for `glassloop eval <file>` and `replayEval`. */
export type EvalDefinition<TOutput = unknown, TExpected = unknown> = Omit<
  EvaluateOptions<TOutput, TExpected>,
  "signal" | "onEvent" | "outDir" | "models" | "model" | "env"
>;

/**
 * Declares an eval with its types checked: the scorers against the agent's output and the
 * dataset's `expected`. Export it as the default of an eval file.
 */
export function defineEval<TOutput, TExpected>(
  definition: EvalDefinition<TOutput, TExpected>,
): EvalDefinition<TOutput, TExpected> {
  return definition;
}
