import { join } from "node:path";
import { ReplayDivergenceError, TraceWriter } from "../entries/trace.js";
import { type AgentEvent, type Limits, type Model, resolveModel } from "../index.js";
import { combine } from "./combine.js";
import type { EvalEvent } from "./events.js";
import { type EvalBudgetError, GuardedModel } from "./guarded-model.js";
import { TrajectoryRecorder } from "./trajectory.js";
import { errorOf, setupFailure, statusOf } from "./trial-outcome.js";
import type {
  CombineRule,
  EvalCase,
  EvalSubject,
  ScoreRecord,
  Scorer,
  SubjectFactory,
  TrialError,
  TrialRecord,
  TrialStatus,
} from "./types.js";

/** Models a trial must use instead of the declared ones (a replay, or `--model`). */
export interface TrialModels {
  /** Handed to the subject factory as `model`. */
  agent?: Model;
  /** Every judge's model in this trial. */
  judge?: Model;
}

/** Everything one trial needs. */
export interface TrialPlan<TOutput, TExpected> {
  subject: EvalSubject<TOutput> | SubjectFactory<TOutput>;
  testCase: EvalCase<TExpected> & { id: string };
  repeat: number;
  scorers: readonly Scorer<TOutput, TExpected>[];
  rule: CombineRule;
  limits: Limits;
  /** The trial's dollars (its allotment of the eval budget); undefined: no eval budget. */
  allotment: number | undefined;
  models: TrialModels;
  signal: AbortSignal;
  emit: (event: EvalEvent) => void;
  /** Directory of the result file: traces go to `traces/` under it. */
  outDir?: string;
  /** The trace redaction environment (API keys are always scrubbed). */
  env?: NodeJS.ProcessEnv;
}

/** The trial's trace file name, relative to the result file. */
export function traceName(caseId: string, repeat: number, kind: "agent" | "judge"): string {
  const safe = caseId.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "_");
  return join("traces", `${safe}.r${repeat}${kind === "judge" ? ".judge" : ""}.jsonl`);
}

/** Runs one case once: the agent (traced), then every scorer, then the rule. Never throws for a trial's failure. */
export async function runTrial<TOutput, TExpected>(
  plan: TrialPlan<TOutput, TExpected>,
): Promise<TrialRecord> {
  const { testCase, repeat } = plan;
  const controller = new AbortController();
  const stopEval = () => controller.abort(plan.signal.reason);
  plan.signal.addEventListener("abort", stopEval, { once: true });
  const agentTrace = plan.outDir === undefined ? undefined : traceName(testCase.id, repeat, "agent");
  const writer = writerFor(plan, agentTrace);
  const recorder = new TrajectoryRecorder();
  let overBudget = false;
  const onEvent = (event: AgentEvent) => {
    recorder.onEvent(event);
    writer?.onEvent(event);
    plan.emit({ type: "run_event", caseId: testCase.id, repeat, source: "agent", event });
    // A subject that is not one agent (a router) runs several; their spend together is watched here.
    const spent = recorder.costUsd;
    if (plan.allotment !== undefined && spent !== undefined && spent >= plan.allotment && !overBudget) {
      overBudget = true;
      controller.abort(new Error("the eval's budget for this trial is spent"));
    }
  };
  // The trial's dollars: its share of the eval budget and its own limit, whichever is less.
  const caps = [plan.allotment, plan.limits.maxCostUsd].filter((v): v is number => v !== undefined);
  const cap = caps.length > 0 ? Math.min(...caps) : undefined;
  const left = () => (cap === undefined ? undefined : cap - (recorder.costUsd ?? 0));
  const agentModel =
    plan.models.agent && cap !== undefined ? new GuardedModel(plan.models.agent, left) : plan.models.agent;
  // Whether the money this trial may spend is its share of the eval's (not its own per-case limit).
  const evalBound =
    plan.allotment !== undefined && plan.allotment < (plan.limits.maxCostUsd ?? Number.POSITIVE_INFINITY);
  const started = performance.now();
  let output: TOutput | undefined;
  let status: TrialStatus = "ok";
  let error: TrialError | undefined;
  try {
    const subject =
      typeof plan.subject === "function"
        ? plan.subject({ caseId: testCase.id, ...(agentModel && { model: agentModel }) })
        : plan.subject;
    const limits = plan.allotment === undefined ? plan.limits : withCost(plan.limits, plan.allotment);
    output = (await subject.run(testCase.input, { onEvent, signal: controller.signal, limits })).output;
  } catch (caught) {
    // A run that could not start (no key, a missing peer) is no evidence about the agent: the
    // eval stops and says why, rather than scoring every trial a failure of the same set-up.
    const setup = setupFailure(caught);
    if (setup) throw setup;
    error = errorOf(caught);
    status = statusOf(caught, plan.signal.aborted, overBudget, evalBound);
  } finally {
    writer?.close();
    plan.signal.removeEventListener("abort", stopEval);
  }
  const latencyMs = performance.now() - started;
  const agentCost = recorder.costUsd;
  const trajectory = recorder.snapshot(latencyMs);
  const base = {
    repeat,
    status,
    ...(output !== undefined && { output }),
    ...(error && { error }),
    runIds: trajectory.runIds,
    steps: trajectory.steps,
    toolCalls: trajectory.calls.map((c) => c.name),
    inputTokens: trajectory.inputTokens,
    outputTokens: trajectory.outputTokens,
    latencyMs,
    ...(agentTrace && { trace: agentTrace }),
  };
  if (status === "aborted") {
    return {
      ...base,
      scores: [],
      score: 0,
      pass: false,
      ...(agentCost !== undefined && { costUsd: agentCost }),
    };
  }
  const judgeTrace = plan.outDir === undefined ? undefined : traceName(testCase.id, repeat, "judge");
  const judged = await score(plan, output, error, trajectory, agentCost, judgeTrace, cap);
  const cost = agentCost === undefined || judged.cost === undefined ? undefined : agentCost + judged.cost;
  if (judged.refused && evalBound) {
    // The eval's money could not pay for a judgment: the trial is not judged, so it is no evidence
    // either way (aborted, as a trial the eval's money stopped), and the eval ends there.
    return {
      ...base,
      status: "aborted",
      error: { code: judged.refused.code, message: `not judged: ${judged.refused.message}` },
      scores: judged.scores,
      score: 0,
      pass: false,
      ...(cost !== undefined && { costUsd: cost }),
      ...(judged.wrote && judgeTrace && { judgeTrace }),
    };
  }
  const { score: combined, pass } = combine(plan.rule, judged.scores);
  return {
    ...base,
    scores: judged.scores,
    score: combined,
    pass,
    ...(cost !== undefined && { costUsd: cost }),
    ...(judged.wrote && judgeTrace && { judgeTrace }),
  };
}

async function score<TOutput, TExpected>(
  plan: TrialPlan<TOutput, TExpected>,
  output: TOutput | undefined,
  error: TrialError | undefined,
  trajectory: ReturnType<TrajectoryRecorder["snapshot"]>,
  agentCost: number | undefined,
  judgeTrace: string | undefined,
  cap: number | undefined,
): Promise<{
  scores: ScoreRecord[];
  cost: number | undefined;
  wrote: boolean;
  /** A judge's call the eval's money refused, if one was. */
  refused?: EvalBudgetError;
}> {
  const { testCase, repeat } = plan;
  let refused: EvalBudgetError | undefined;
  let writer: TraceWriter | undefined;
  let cost: number | undefined = 0;
  const scores: ScoreRecord[] = [];
  for (const scorer of plan.scorers) {
    const judges = new TrajectoryRecorder();
    const remainingUsd = () =>
      cap === undefined
        ? undefined
        : Math.max(0, cap - (agentCost ?? 0) - (cost ?? 0) - (judges.costUsd ?? 0));
    const services = {
      model: (declared: string | Model) => {
        const chosen = plan.models.judge ?? resolveModel(declared, plan.env ?? process.env);
        return cap === undefined
          ? chosen
          : new GuardedModel(chosen, remainingUsd, undefined, (error) => {
              refused ??= error;
            });
      },
      onEvent: (event: AgentEvent) => {
        judges.onEvent(event);
        writer ??= writerFor(plan, judgeTrace);
        writer?.onEvent(event);
        plan.emit({ type: "run_event", caseId: testCase.id, repeat, source: "judge", event } as const);
      },
      remainingUsd,
    };
    let record: ScoreRecord;
    try {
      const result = await scorer.score({
        caseId: testCase.id,
        input: testCase.input,
        output,
        expected: testCase.expected,
        metadata: testCase.metadata ?? {},
        ...(error && { error: { code: error.code, message: error.message } }),
        trajectory,
        signal: plan.signal,
        services,
      });
      record = { scorer: scorer.name, score: clamp(result.score), pass: result.pass, reason: result.reason };
    } catch (thrown) {
      record = {
        scorer: scorer.name,
        score: 0,
        pass: false,
        reason: `the scorer threw: ${(thrown as Error).message}`,
      };
      if (thrown instanceof ReplayDivergenceError) {
        const { call, path, recorded, actual } = thrown;
        record.divergence = { call, path, recorded, actual };
      }
    }
    const judgeRuns = judges.snapshot(0);
    if (judgeRuns.runIds.length > 0) {
      record.judgeRunIds = judgeRuns.runIds;
      if (judgeRuns.costUsd !== undefined) record.costUsd = judgeRuns.costUsd;
      cost = cost === undefined || judgeRuns.costUsd === undefined ? undefined : cost + judgeRuns.costUsd;
    }
    scores.push(record);
  }
  writer?.close();
  return { scores, cost, wrote: writer !== undefined, ...(refused && { refused }) };
}

function writerFor(plan: TrialPlan<unknown, unknown>, name: string | undefined): TraceWriter | undefined {
  if (plan.outDir === undefined || name === undefined) return undefined;
  return new TraceWriter({
    file: join(plan.outDir, name),
    ...(plan.env && { redaction: { env: plan.env } }),
  });
}

function withCost(limits: Limits, allotment: number): Limits {
  return { ...limits, maxCostUsd: Math.min(limits.maxCostUsd ?? allotment, allotment) };
}

function clamp(score: number): number {
  return Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
}
