import { GlassloopError, RunError, runStatusOf } from "../core/errors.js";
import { deepEqual, describeValue } from "../core/request-diff.js";
import type { AgentEvent, ToolResultEvent } from "../core/vocabulary/events.js";
import type { Message } from "../core/vocabulary/messages.js";
import type { Model, ModelObserver, ModelRequest, ModelResponse } from "../models/model.js";
import { exchangesOf, ReplayDivergenceError, ReplayModel } from "../providers/replay.js";
import { resolveModel } from "../providers/resolve.js";
import { buildRunView } from "./build-run-view.js";
import { readTraceEvents } from "./reader.js";
import type { RunView } from "./run-view.js";

/** What a replay needs of an agent: glassloop's `Agent` fits. */
export interface ReplayableAgent {
  run(
    input: string,
    options: { onEvent?: (event: AgentEvent) => void; history?: readonly Message[] },
  ): Promise<{ runId: string; output: unknown }>;
}

/** Options of `replayTrace`. */
export interface ReplayTraceOptions {
  /** The trace file (`file.jsonl`, or `file.jsonl#runId` for one run of several). */
  trace: string;
  /** Builds the agent to replay, with the model it must use (the recording, or the fork). */
  agent: (model: Model) => ReplayableAgent;
  /** Fork: replay the recording up to this step, then let `model` answer from this step on. */
  fromStep?: number;
  /** The live model of a fork (`provider:model` or a Model). */
  model?: string | Model;
  /** The history the recorded run continued from, if it did. */
  history?: readonly Message[];
  /** Sees every event of the replayed run (e.g. a TraceWriter's). */
  onEvent?: (event: AgentEvent) => void;
}

/** Where a replay first differed from its recording. */
export interface Divergence {
  /** The step of the recorded run where the difference shows. */
  step: number;
  kind: "request" | "tool_result" | "output" | "status" | "steps";
  /** JSON path in the request, or the tool's name. */
  where: string;
  recorded: unknown;
  actual: unknown;
  message: string;
}

/** The outcome of a replay. */
export interface ReplayReport {
  /** `reproduced`: every request, tool result and the outcome matched; `forked`: a live model took over. */
  status: "reproduced" | "diverged" | "forked";
  recorded: RunView;
  /** The replayed run's id. */
  runId?: string;
  /** The first difference, if any (for a fork: before the fork point). */
  divergence?: Divergence;
  /** The replayed run's output, or its error. */
  output?: unknown;
  error?: { code: string; message: string };
  /** Every event of the replayed run. */
  events: AgentEvent[];
}

/** Fork or replay arguments that cannot work. */
export class ReplayConfigError extends GlassloopError {
  constructor(message: string) {
    super("config", message);
  }
}

/**
 * Re-runs a recorded run against its recorded model responses and reports the first step where
 * the agent's request or a tool's result differs from the recording: a deterministic
 * reproduction of a bug, usable as a regression test. With `fromStep` and `model`, the recording
 * answers steps before `fromStep` and the live model the rest (a fork).
 */
export async function replayTrace(options: ReplayTraceOptions): Promise<ReplayReport> {
  const { events, source } = pickRun(options.trace);
  const recorded = buildRunView(events);
  const exchanges = exchangesOf(events);
  const fork = forkModel(options, exchanges, source);
  const model = fork ?? new ReplayModel(exchanges, { source });
  const replayed: AgentEvent[] = [];
  const divergences: Divergence[] = [];
  const onEvent = (event: AgentEvent) => {
    replayed.push(event);
    if (event.type === "tool_result" && !(fork && event.step >= (options.fromStep ?? 0))) {
      const d = compareToolResult(recorded, event);
      if (d) divergences.push(d);
    }
    options.onEvent?.(event);
  };
  const report: ReplayReport = { status: fork ? "forked" : "reproduced", recorded, events: replayed };
  try {
    const result = await options.agent(model).run(recorded.input, {
      onEvent,
      ...(options.history && { history: options.history }),
    });
    report.runId = result.runId;
    report.output = result.output;
    if (!fork) divergences.push(...compareEnd(recorded, model as ReplayModel, "ok", result.output));
  } catch (error) {
    if (!(error instanceof RunError)) throw error;
    report.runId = error.runId;
    report.error = { code: error.code, message: error.message };
    const cause = error.cause;
    if (cause instanceof ReplayDivergenceError) {
      const step = exchanges[cause.call - 1]?.step ?? cause.call;
      divergences.push({
        step,
        kind: cause.path === "(call)" ? "steps" : "request",
        where: cause.path,
        recorded: cause.recorded,
        actual: cause.actual,
        message: cause.message,
      });
    } else if (!fork) {
      divergences.push(
        ...compareEnd(recorded, model as ReplayModel, runStatusOf(error), undefined, error.code),
      );
    }
  }
  divergences.sort((a, b) => a.step - b.step);
  const first = divergences[0];
  if (first) {
    report.divergence = first;
    report.status = "diverged";
  }
  return report;
}

function pickRun(spec: string): { events: AgentEvent[]; source: string } {
  const hash = spec.lastIndexOf("#");
  const path = hash > 0 ? spec.slice(0, hash) : spec;
  const runId = hash > 0 ? spec.slice(hash + 1) : undefined;
  const all = readTraceEvents(path);
  const first = all.find((e) => e.type === "run_start");
  const id = runId ?? first?.runId ?? all[0]?.runId;
  const events = all.filter((e) => e.runId === id);
  if (events.length === 0) throw new ReplayConfigError(`No run ${runId} in ${path}`);
  return { events, source: path };
}

function forkModel(
  options: ReplayTraceOptions,
  exchanges: ReturnType<typeof exchangesOf>,
  source: string,
): Model | undefined {
  const { fromStep, model } = options;
  if (fromStep === undefined && model === undefined) return undefined;
  if (fromStep === undefined || model === undefined) {
    throw new ReplayConfigError("A fork needs both a step to fork from and a model to continue with");
  }
  if (!Number.isInteger(fromStep) || fromStep < 1) {
    throw new ReplayConfigError(`The step to fork from must be a whole number from 1, not ${fromStep}`);
  }
  const prefix = exchanges.filter((e) => e.step < fromStep);
  if (fromStep > 1 && prefix.length === 0) {
    throw new ReplayConfigError(`The recording has no model calls before step ${fromStep}`);
  }
  const live = resolveModel(model);
  const replay = prefix.length > 0 ? new ReplayModel(prefix, { source }) : undefined;
  return new ForkModel(replay, prefix.length, live);
}

/** Answers from the recording for the first calls, then from a live model. */
class ForkModel implements Model {
  readonly id: string;
  readonly price?: Model["price"];
  #calls = 0;

  constructor(
    private readonly replay: ReplayModel | undefined,
    private readonly replayed: number,
    private readonly live: Model,
  ) {
    this.id = live.id;
    if (live.price) this.price = live.price;
  }

  generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const call = this.#calls++;
    if (this.replay && call < this.replayed) return this.replay.generate(request, observer);
    return this.live.generate(request, observer);
  }
}

function compareToolResult(recorded: RunView, event: ToolResultEvent): Divergence | undefined {
  const step = recorded.steps.find((s) => s.step === event.step);
  const before = step?.tools.find((t) => t.toolCallId === event.toolCallId);
  if (!before) return undefined; // a call the recording lacks shows up as a request divergence
  if (before.status === event.status && before.content === event.content) return undefined;
  return {
    step: event.step,
    kind: "tool_result",
    where: event.toolName,
    recorded: { status: before.status, content: before.content },
    actual: { status: event.status, content: event.content },
    message:
      `Tool ${event.toolName} (${event.toolCallId}) in step ${event.step} returned ${describeValue(event.content, 120)} ` +
      `(${event.status}); the recording has ${describeValue(before.content ?? "", 120)} (${before.status ?? "no result"})`,
  };
}

function compareEnd(
  recorded: RunView,
  model: ReplayModel,
  status: string,
  output: unknown,
  code?: string,
): Divergence[] {
  const last = recorded.steps.at(-1)?.step ?? 0;
  if (model.remaining > 0) {
    return [
      {
        step: model.exchanges[model.exchanges.length - model.remaining]?.step ?? last,
        kind: "steps",
        where: "(run)",
        recorded: model.exchanges.length,
        actual: model.exchanges.length - model.remaining,
        message: `The replay ended after ${model.exchanges.length - model.remaining} model call(s); the recording made ${model.exchanges.length}`,
      },
    ];
  }
  if (status !== recorded.status || (code !== undefined && code !== recorded.errors[0]?.code)) {
    return [
      {
        step: last,
        kind: "status",
        where: "(run)",
        recorded: recorded.errors[0]?.code ?? recorded.status,
        actual: code ?? status,
        message: `The replay ended ${code ?? status}; the recording ended ${recorded.errors[0]?.code ?? recorded.status}`,
      },
    ];
  }
  if (status === "ok" && !deepEqual(output, recorded.output)) {
    return [
      {
        step: last,
        kind: "output",
        where: "(output)",
        recorded: recorded.output,
        actual: output,
        message: `The replay's output ${describeValue(output, 120)} differs from the recorded ${describeValue(recorded.output, 120)}`,
      },
    ];
  }
  return [];
}
