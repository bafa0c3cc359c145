/**
 * glassloop evals: datasets, scorers, repeated runs with confidence intervals, baselines and
 * offline replays in CI — `import … from "glassloop/evals"`. Built on glassloop's public API only.
 */
export { BudgetPool } from "./budget-pool.js";
export { ALL_PASS, combine } from "./combine.js";
export { type CaseChange, type Comparison, compareResults } from "./compare.js";
export { dataset } from "./dataset.js";
export { caseSchema, DatasetError, loadDataset, parseJsonl, parseYaml } from "./dataset-file.js";
export { defineEval, type EvalDefinition } from "./define.js";
export { type EvaluateOptions, evaluate, newEvalId } from "./evaluate.js";
export type * from "./events.js";
export { DEFAULT_OUTPUT_RESERVE, EvalBudgetError, GuardedModel, worstCaseCost } from "./guarded-model.js";
export { EvalReplayError, replayEval } from "./replay.js";
export { formatComparison, formatReport, type ReportStyle, trialMark } from "./report-table.js";
export {
  DEFAULT_EVAL_DIR,
  type EvalListing,
  EvalResultError,
  type LoadedResult,
  listResults,
  RESULT_FILE,
  readResult,
  resultTraceFiles,
  writeResult,
} from "./result-file.js";
export { describeRule } from "./rule-text.js";
export * from "./scorers/index.js";
export {
  type BootstrapOptions,
  bootstrapMean,
  type McNemar,
  mcnemar,
  mean,
  type PairedDifference,
  pairedBootstrap,
  passAtK,
  quantile,
  seededRandom,
  spread,
  wilson,
  Z95,
} from "./stats.js";
export { isScored, summarize, summarizeCase } from "./summary.js";
export { TrajectoryRecorder } from "./trajectory.js";
export { type TrialModels, traceName } from "./trial.js";
export type * from "./types.js";
