import type { AgentEvent, Limits, Model, RunUsage, ToolOutcomeStatus } from "../index.js";

/** One case of a dataset: what the agent is asked, and what a good answer looks like. */
export interface EvalCase<
  TExpected = unknown,
  TMeta extends Record<string, unknown> = Record<string, unknown>,
> {
  /** Stable id for reports, baselines and replays (default: the case's position, `case-1`, ...). */
  id?: string;
  input: string;
  /** What scorers compare the output with when they are given nothing else. */
  expected?: TExpected;
  metadata?: TMeta;
  /** Ceilings for this case's run, on top of the eval's per-case limits (the lower wins). */
  limits?: Limits;
}

/** A named list of cases; `cases` have ids once the dataset is made (`dataset()` or a file). */
export interface Dataset<TExpected = unknown> {
  name: string;
  cases: readonly (EvalCase<TExpected> & { id: string })[];
}

/** What an eval needs of an agent: glassloop's `Agent` and `Router` fit. */
export interface EvalSubject<TOutput> {
  run(
    input: string,
    options: { onEvent?: (event: AgentEvent) => void; signal?: AbortSignal; limits?: Limits },
  ): Promise<{ runId: string; output: TOutput }>;
}

/** Builds the subject for one trial; `model` is set when the eval runs with `--model` or a replay. */
export type SubjectFactory<TOutput> = (context: { model?: Model; caseId: string }) => EvalSubject<TOutput>;

/** One tool call in a trial's trajectory, across every run the trial made (a router and its specialist). */
export interface TrajectoryCall {
  runId: string;
  step: number;
  name: string;
  /** The arguments parsed from JSON, or the raw text when they were not JSON. */
  args: unknown;
  status?: ToolOutcomeStatus;
  content?: string;
}

/** What a trial's runs did: the tool calls in order, model calls, usage and time. */
export interface Trajectory {
  runIds: string[];
  calls: TrajectoryCall[];
  /** Model calls of the agent's own runs (a sub-agent's inside a tool are not counted). */
  steps: number;
  inputTokens: number;
  outputTokens: number;
  /** Undefined when some model's price is unknown. */
  costUsd?: number;
  latencyMs: number;
}

/** A score in [0, 1], whether it counts as a pass, and why. */
export interface ScoreResult {
  score: number;
  pass: boolean;
  reason: string;
}

/** A stored score: the scorer's name plus its result (and the judge's run, for an LLM judge). */
export interface ScoreRecord extends ScoreResult {
  scorer: string;
  /** Run ids of the judge's runs, when the scorer is an LLM judge (its own trace). */
  judgeRunIds?: string[];
  costUsd?: number;
  /** In a replay: where the scorer's own model request (a judge's) first differed from the recording. */
  divergence?: NonNullable<TrialError["divergence"]>;
}

/** What a scorer sees of one trial. */
export interface ScoreContext<TOutput, TExpected> {
  caseId: string;
  input: string;
  /** Undefined when the run failed (then `error` says why). */
  output: TOutput | undefined;
  expected: TExpected | undefined;
  metadata: Record<string, unknown>;
  error?: { code: string; message: string };
  trajectory: Trajectory;
  signal: AbortSignal;
  /** For scorers that call a model (the LLM judge): its model, events and the money left. */
  services: ScorerServices;
}

/** What the eval lends a scorer that runs a model of its own. */
export interface ScorerServices {
  /** The model to use for `declared` (in a replay: the recorded judge answers). */
  model(declared: string | Model): Model;
  /** Sees every event of the scorer's runs: they go to the trial's judge trace and the eval's events. */
  onEvent(event: AgentEvent): void;
  /** Dollars this trial may still spend (undefined: no eval budget). */
  remainingUsd(): number | undefined;
}

/** A scorer: a name and a function of one trial. */
export interface Scorer<TOutput = unknown, TExpected = unknown> {
  name: string;
  score(context: ScoreContext<TOutput, TExpected>): ScoreResult | Promise<ScoreResult>;
}

/** How a trial's scores make its pass/fail: all must pass, any, or a (weighted) mean over a threshold. */
export type CombineRule =
  | { rule: "all" }
  | { rule: "any" }
  | { rule: "mean"; threshold: number; weights?: Record<string, number> };

/** How one trial ended. */
export type TrialStatus = "ok" | "failed" | "budget_exceeded" | "aborted" | "skipped";

/** Why a trial's run failed; for a replay that diverged, where its request first differed. */
export interface TrialError {
  code: string;
  message: string;
  divergence?: { call: number; path: string; recorded: unknown; actual: unknown };
}

/** One run of one case (a case runs `repeat` times). */
export interface TrialRecord {
  repeat: number;
  status: TrialStatus;
  output?: unknown;
  error?: TrialError;
  scores: ScoreRecord[];
  /** The combined score in [0, 1] under the eval's rule. */
  score: number;
  pass: boolean;
  runIds: string[];
  steps: number;
  toolCalls: string[];
  inputTokens: number;
  outputTokens: number;
  /** Agent plus judge; undefined when a price is unknown. */
  costUsd?: number;
  latencyMs: number;
  /** The agent's trace, relative to the result file. */
  trace?: string;
  /** The judges' trace, relative to the result file. */
  judgeTrace?: string;
}

/** A proportion or a mean with its 95% interval. */
export interface Estimate {
  value: number;
  lo: number;
  hi: number;
  /** `wilson` for proportions, `bootstrap` for means of scores. */
  method: "wilson" | "bootstrap";
  n: number;
}

/** Median and 95th percentile of a quantity. */
export interface Spread {
  median: number;
  p95: number;
}

/** One case over its trials. */
export interface CaseRecord {
  id: string;
  input: string;
  expected?: unknown;
  metadata?: Record<string, unknown>;
  trials: TrialRecord[];
  passRate: number;
  /** pass@k for k = 1..trials (unbiased estimator): the chance at least one of k trials passes. */
  passAtK: number[];
  meanScore: number;
  /** Over the case's scored trials: latency, and cost when every price is known. */
  latencyMs: Spread;
  costUsd?: Spread;
}

/** Per scorer: mean score with its interval and the share of passes with its Wilson interval. */
export interface ScorerSummary {
  scorer: string;
  mean: Estimate;
  passRate: Estimate;
}

/** The numbers of a whole eval. */
export interface EvalSummary {
  trials: number;
  /** Trials that ran to a score (not skipped or aborted by the eval). */
  scored: number;
  passed: number;
  passRate: Estimate;
  meanScore: Estimate;
  scorers: ScorerSummary[];
  /** pass@k averaged over cases, k = 1..repeat. */
  passAtK: number[];
  costUsd?: number;
  /** Cost per case (all its trials) and per trial. */
  costPerTrial?: Spread;
  /** Dollars per passing trial. */
  costPerPass?: number;
  latencyMs: Spread;
}

/** Why an eval stopped before every trial ran. */
export type EvalStop = "aborted" | "budget";

/** A finished (or interrupted) eval: every case and trial, the summary, where the traces are. */
export interface EvalResult {
  format: "glassloop-eval";
  version: 1;
  id: string;
  name: string;
  dataset: string;
  startedAt: number;
  durationMs: number;
  /** The model given with `--model` or the API's `model`, if any. */
  model?: string;
  /** Set when the eval stopped early; what finished is kept. */
  stopped?: EvalStop;
  config: { repeat: number; concurrency: number; limits: EvalLimits; combine: CombineRule };
  scorers: string[];
  cases: CaseRecord[];
  summary: EvalSummary;
  /** Trial traces' directory, relative to the result file. */
  traces?: string;
}

/** Budgets of an eval: in total and for each trial of a case. */
export interface EvalLimits {
  /** Dollars for the whole eval, judges included: no model call is made that could pass it. */
  maxCostUsd?: number;
  /** Limits of every trial's run (a case's own `limits` tighten them further). */
  perCase?: Limits;
}

/** Re-exported for scorer authors. */
export type { RunUsage };
