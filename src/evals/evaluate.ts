import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { redactingSink, scrubberFor } from "../core/sink.js";
import { ConfigError, type Limits, type Model, resolveModel } from "../index.js";
import { BudgetPool } from "./budget-pool.js";
import { ALL_PASS, checkRule } from "./combine.js";
import type { EvalEvent } from "./events.js";
import { RESULT_FILE, writeResult } from "./result-file.js";
import { summarize, summarizeCase } from "./summary.js";
import { runTrial, type TrialModels } from "./trial.js";
import type {
  CombineRule,
  Dataset,
  EvalLimits,
  EvalResult,
  EvalStop,
  EvalSubject,
  Scorer,
  SubjectFactory,
  TrialRecord,
} from "./types.js";

/** Options of `evaluate`. */
export interface EvaluateOptions<TOutput, TExpected> {
  /** For reports (default: the dataset's name). */
  name?: string;
  /** The eval's id (default: a new one, see `newEvalId`). */
  id?: string;
  /** The agent, or a function that builds one per trial (needed for `model` and replays). */
  agent: EvalSubject<TOutput> | SubjectFactory<TOutput>;
  dataset: Dataset<TExpected>;
  scorers: readonly Scorer<TOutput, TExpected>[];
  /** How a trial's scores make its pass (default: every scorer passes). */
  combine?: CombineRule;
  /** Trials per case (default 1). */
  repeat?: number;
  /** Trials running at once (default 4). */
  concurrency?: number;
  limits?: EvalLimits;
  /** The model handed to an `agent` function (e.g. from `--model`). */
  model?: string | Model;
  /** Aborting stops the eval: trials in flight are aborted, the rest skipped, what finished is kept. */
  signal?: AbortSignal;
  onEvent?: (event: EvalEvent) => void;
  /** Write `result.json` and every trial's trace under this directory. */
  outDir?: string;
  /** Per trial, models that replace the declared ones (a replay). */
  models?: (caseId: string, repeat: number) => TrialModels;
  /** Seed of the bootstrap intervals (default 1). */
  seed?: number;
  /** The environment whose secrets traces are scrubbed of (API keys are always scrubbed). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs every case of `dataset` `repeat` times against the agent, at most `concurrency` at once,
 * scores each trial, and returns the result with its statistics. A trial's failure is a scored
 * failure, not an exception; the eval's budget is never handed out twice; an aborted eval
 * returns (and writes) what finished.
 */
export async function evaluate<TOutput, TExpected>(
  options: EvaluateOptions<TOutput, TExpected>,
): Promise<EvalResult> {
  const repeat = whole(options.repeat ?? 1, "repeat");
  const concurrency = whole(options.concurrency ?? 4, "concurrency");
  const rule = options.combine ?? ALL_PASS;
  const scorerNames = options.scorers.map((s) => s.name);
  if (new Set(scorerNames).size !== scorerNames.length) {
    throw new ConfigError(
      `evaluate: two scorers share a name (${scorerNames.join(", ")}); give each its own`,
    );
  }
  if (options.scorers.length === 0) throw new ConfigError("evaluate: give at least one scorer");
  checkRule(rule, scorerNames);
  const limits = options.limits ?? {};
  if (limits.maxCostUsd !== undefined && !(limits.maxCostUsd >= 0)) {
    throw new ConfigError(`evaluate: limits.maxCostUsd must be a number >= 0, got ${limits.maxCostUsd}`);
  }
  const model =
    options.model === undefined ? undefined : resolveModel(options.model, options.env ?? process.env);
  if (model && typeof options.agent !== "function") {
    throw new ConfigError(
      "evaluate: a model was given, but the agent is built already; pass a function ({ model }) => agent",
    );
  }
  const id = options.id ?? newEvalId();
  const name = options.name ?? options.dataset.name;
  const emit = (event: EvalEvent) => options.onEvent?.(event);
  const startedAt = Date.now();
  const started = performance.now();
  const madeOutDir = options.outDir !== undefined && !existsSync(options.outDir);
  if (options.outDir !== undefined) {
    // Traces append: a second eval in the same directory would corrupt the first one's recording.
    if (existsSync(join(options.outDir, RESULT_FILE)) || existsSync(join(options.outDir, "traces"))) {
      throw new ConfigError(
        `evaluate: ${options.outDir} already holds an eval; give another directory or remove it`,
      );
    }
    mkdirSync(options.outDir, { recursive: true });
  }

  const jobs = options.dataset.cases.flatMap((c) =>
    Array.from({ length: repeat }, (_, r) => ({ c, repeat: r + 1 })),
  );
  const trials = new Map<string, TrialRecord>();
  const pool = new BudgetPool(limits.maxCostUsd);
  const stopper = new AbortController();
  const onAbort = () => stopper.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  let stopped: EvalStop | undefined;
  let budgetSpent = false;
  let next = 0;
  let done = 0;
  let running = 0;
  let setup: unknown;
  emit({ type: "eval_start", id, name, trials: jobs.length });

  const worker = async () => {
    for (;;) {
      const job = jobs[next++];
      if (!job) return;
      const key = `${job.c.id}#${job.repeat}`;
      const caseLimits = tighten(limits.perCase ?? {}, job.c.limits);
      // The free money is shared among the slots not running a trial (this one's included), not
      // among all `concurrency` of them: what the running trials hold is already set aside.
      const freeSlots = Math.min(concurrency - running, jobs.length - next + 1);
      const allotment =
        stopper.signal.aborted || budgetSpent ? 0 : pool.reserve(caseLimits.maxCostUsd, freeSlots);
      if (stopper.signal.aborted || allotment === 0) {
        if (!stopper.signal.aborted) stopped ??= "budget";
        trials.set(key, skipped(job.repeat));
        done++;
        continue;
      }
      emit({ type: "trial_start", caseId: job.c.id, repeat: job.repeat });
      running++;
      let trial: TrialRecord;
      try {
        trial = await runTrial({
          subject: options.agent,
          testCase: job.c,
          repeat: job.repeat,
          scorers: options.scorers,
          rule,
          limits: caseLimits,
          allotment: limits.maxCostUsd === undefined ? undefined : allotment,
          models: { ...(model && { agent: model }), ...options.models?.(job.c.id, job.repeat) },
          signal: stopper.signal,
          emit,
          ...(options.outDir !== undefined && { outDir: options.outDir }),
          ...(options.env && { env: options.env }),
        });
      } catch (error) {
        // The trial could not start (see setupFailure in trial-outcome.ts): nothing else will, so the eval stops.
        setup ??= error;
        stopper.abort(error);
        return;
      } finally {
        running--;
      }
      pool.settle(limits.maxCostUsd === undefined ? undefined : allotment, trial.costUsd ?? 0);
      // A trial the eval's money could not pay for ends the eval: the next would fare no better.
      if (trial.status === "aborted" && trial.error?.code === "eval_budget" && !stopper.signal.aborted) {
        stopped ??= "budget";
        budgetSpent = true;
      }
      trials.set(key, trial);
      done++;
      emit({
        type: "trial_end",
        caseId: job.c.id,
        repeat: job.repeat,
        trial,
        done,
        total: jobs.length,
        spentUsd: pool.spent,
      });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
  if (setup !== undefined) {
    // Nothing ran: no half-made eval is left for `trace view` to list.
    if (madeOutDir) rmSync(options.outDir as string, { recursive: true, force: true });
    throw setup;
  }
  if (stopper.signal.aborted) stopped = "aborted";

  const cases = options.dataset.cases.map((c) =>
    summarizeCase({
      id: c.id,
      input: c.input,
      ...(c.expected !== undefined && { expected: c.expected }),
      ...(c.metadata && { metadata: c.metadata }),
      trials: Array.from({ length: repeat }, (_, r) => trials.get(`${c.id}#${r + 1}`) ?? skipped(r + 1)),
    }),
  );
  const result: EvalResult = {
    format: "glassloop-eval",
    version: 1,
    id,
    name,
    dataset: options.dataset.name,
    startedAt,
    durationMs: performance.now() - started,
    ...(model && { model: model.id }),
    ...(stopped && { stopped }),
    config: { repeat, concurrency, limits, combine: rule },
    scorers: scorerNames,
    cases,
    summary: summarize(cases, scorerNames, options.seed),
    ...(options.outDir !== undefined && { traces: "traces" }),
  };
  // result.json is kept as a CI recording, and the result is what --json prints: a model that
  // echoed a key must not get it into either, so the result leaves through a redacting sink.
  const outDir = options.outDir;
  const sink = redactingSink("eval result", scrubberFor(options.env ?? process.env), (clean: EvalResult) => {
    if (outDir !== undefined) writeResult(outDir, clean);
    return clean;
  });
  const written = sink.write(result);
  emit({ type: "eval_end", result: written });
  return written;
}

/** A fresh eval id: the start time and a random suffix, e.g. `eval_20261201T093000_1a2b3c4d`. */
export function newEvalId(): string {
  return `eval_${new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "")}_${randomUUID().slice(0, 8)}`;
}

function skipped(repeat: number): TrialRecord {
  return {
    repeat,
    status: "skipped",
    scores: [],
    score: 0,
    pass: false,
    runIds: [],
    steps: 0,
    toolCalls: [],
    inputTokens: 0,
    outputTokens: 0,
    latencyMs: 0,
  };
}

function whole(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`evaluate: ${what} must be a whole number >= 1, got ${value}`);
  return value;
}

function tighten(base: Limits, extra: Limits | undefined): Limits {
  const merged: Limits = { ...base };
  for (const [key, value] of Object.entries(extra ?? {}) as [keyof Limits, number | undefined][]) {
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = current === undefined ? value : Math.min(current, value);
  }
  return merged;
}
