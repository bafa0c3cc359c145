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
export type {
  EvalEndEvent,
  EvalEvent,
  EvalStartEvent,
  TrialEndEvent,
  TrialRunEvent,
  TrialStartEvent,
} from "./events.js";
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
export {
  type ArgsMatcher,
  type CustomScore,
  contains,
  type ExpectedCall,
  exact,
  fields,
  graded,
  type JudgeOptions,
  judge,
  maxCost,
  maxLatency,
  maxSteps,
  type NumericOptions,
  noToolErrors,
  numeric,
  regex,
  scorer,
  type TextOptions,
  type ToolsCalledOptions,
  toolsCalled,
  verdict,
} from "./scorers/index.js";
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
export type {
  CaseRecord,
  CombineRule,
  Dataset,
  Estimate,
  EvalCase,
  EvalLimits,
  EvalResult,
  EvalStop,
  EvalSubject,
  EvalSummary,
  RunUsage,
  ScoreContext,
  ScoreRecord,
  ScoreResult,
  Scorer,
  ScorerServices,
  ScorerSummary,
  Spread,
  SubjectFactory,
  Trajectory,
  TrajectoryCall,
  TrialError,
  TrialRecord,
  TrialStatus,
} from "./types.js";
