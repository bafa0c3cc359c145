import type { Limits } from "../agent/budget.js";
import type { RunUsage } from "../agent/usage.js";
import type { FinishReason, TokenUsage } from "../models/model.js";
import type { AgentEvent } from "../vocabulary/events.js";
import type { ReasoningPart, ToolCall } from "../vocabulary/messages.js";
import type { ToolOutcomeStatus } from "../vocabulary/outcome.js";
import type { TraceRunStatus } from "../vocabulary/status.js";
import type { TraceProblem } from "./trace-format.js";

export type { TraceRunStatus } from "../vocabulary/status.js";

/** One request as it went over the wire (one per attempt). */
export interface RequestView {
  attempt: number;
  time: number;
  url?: string;
  body: unknown;
}

/** The model's answer in a step. */
export interface ResponseView {
  time: number;
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: TokenUsage;
  latencyMs: number;
  reasoning?: ReasoningPart[];
  raw?: unknown;
}

/** One tool call and what became of it. */
export interface ToolCallView {
  toolCallId: string;
  toolName: string;
  /** The raw argument text the model produced. */
  arguments: string;
  time: number;
  status?: ToolOutcomeStatus;
  content?: string;
  durationMs?: number;
  errorDetail?: string;
  /** Runs of agents used as this tool, built from their nested events. */
  subRuns: RunView[];
  /** The scale-out worker that ran the call (its result's, else its start's `worker`). */
  worker?: string;
}

/** An error that ended the run. */
export interface ErrorView {
  code: string;
  message: string;
  time: number;
  /** The step that was running or had just run. */
  step: number;
}

/** One step: its requests (retries included), the response, the tool calls. */
export interface StepView {
  step: number;
  time: number;
  /** Milliseconds from the run's start. */
  offsetMs: number;
  durationMs?: number;
  requests: RequestView[];
  retries: { attempt: number; delayMs: number; error: string; time: number }[];
  response?: ResponseView;
  /** Reasoning of another provider that the request left out (the transcript changed provider). */
  reasoningDropped?: { count: number; from: string[] };
  tools: ToolCallView[];
  /** Cost of this step in USD when the model's price is known. */
  costUsd?: number;
  /** The run's usage after this step: budget consumption so far. */
  usage?: RunUsage;
  error?: ErrorView;
  /**
   * The scale-out workers whose events make up this step, in order: one, or two when a worker
   * died during the step and another finished it. Absent for a run on one process.
   */
  workers?: string[];
}

/** A run reconstructed from its events, ready to print or to show in the viewer. */
export interface RunView {
  runId: string;
  /** The agent's name from `run_start` (absent in traces written before it was recorded). */
  agent?: string;
  model: string;
  input: string;
  status: TraceRunStatus;
  startedAt: number;
  endedAt?: number;
  durationMs?: number;
  limits?: Limits;
  usage?: RunUsage;
  output?: unknown;
  /** Steps in order; tool calls of the closing of a crashed history land in step 0. */
  steps: StepView[];
  errors: ErrorView[];
  /** Lines of the trace that could not be used. */
  problems: TraceProblem[];
  /** Events of kinds this version does not know, kept so nothing is silently dropped. */
  unknownEvents: number;
  /** The scale-out workers that ran this run, in the order they joined it (absent: one process). */
  workers?: string[];
}

/** The line a run gets in a list of runs. */
export interface RunSummary {
  runId: string;
  model: string;
  status: TraceRunStatus;
  input: string;
  startedAt: number;
  durationMs?: number;
  steps: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
  errorCode?: string;
  /** The trace file it was read from. */
  file?: string;
}

/** Reconstructs one run from its events (in trace order). */
export function buildRunView(events: readonly AgentEvent[], problems: TraceProblem[] = []): RunView {
  const first = events[0];
  const view: RunView = {
    runId: first?.runId ?? "unknown",
    model: "unknown",
    input: "",
    status: "incomplete",
    startedAt: first?.time ?? 0,
    steps: [],
    errors: [],
    problems,
    unknownEvents: 0,
  };
  const nested = new Map<ToolCallView, AgentEvent[]>();
  const stepOf = (n: number): StepView => {
    let step = view.steps.find((s) => s.step === n);
    if (!step) {
      const time = events.find((e) => "step" in e && e.step === n)?.time ?? view.startedAt;
      step = { step: n, time, offsetMs: time - view.startedAt, requests: [], retries: [], tools: [] };
      view.steps.push(step);
    }
    return step;
  };
  const toolOf = (step: StepView, id: string, name: string, time: number): ToolCallView => {
    let call = step.tools.find((t) => t.toolCallId === id);
    if (!call) {
      call = { toolCallId: id, toolName: name, arguments: "", time, subRuns: [] };
      step.tools.push(call);
    }
    return call;
  };
  for (const e of events) {
    const worker = workerOf(e);
    if (worker !== undefined) {
      view.workers = withOnce(view.workers, worker);
      if ("step" in e && typeof e.step === "number" && e.type !== "nested") {
        const step = stepOf(e.step);
        step.workers = withOnce(step.workers, worker);
      }
    }
    switch (e.type) {
      case "run_start":
        Object.assign(view, { model: e.model, input: e.input, startedAt: e.time });
        if (e.agent !== undefined) view.agent = e.agent;
        if (e.limits) view.limits = e.limits;
        break;
      case "step_start": {
        const step = stepOf(e.step);
        step.time = e.time;
        step.offsetMs = e.time - view.startedAt;
        break;
      }
      case "model_request":
        stepOf(e.step).requests.push({
          attempt: e.attempt,
          time: e.time,
          body: e.body,
          ...(e.url !== undefined && { url: e.url }),
        });
        break;
      case "model_retry":
        stepOf(e.step).retries.push({ attempt: e.attempt, delayMs: e.delayMs, error: e.error, time: e.time });
        break;
      case "model_response": {
        const { type: _t, runId: _r, step, ...response } = e;
        stepOf(step).response = response;
        break;
      }
      case "text_delta":
      case "reasoning_delta":
        break;
      case "reasoning_dropped":
        stepOf(e.step).reasoningDropped = { count: e.count, from: e.from };
        break;
      case "tool_call": {
        const call = toolOf(stepOf(e.step), e.toolCallId, e.toolName, e.time);
        call.arguments = e.arguments;
        if (worker !== undefined && call.worker === undefined) call.worker = worker;
        break;
      }
      case "tool_result": {
        const call = toolOf(stepOf(e.step), e.toolCallId, e.toolName, e.time);
        Object.assign(call, { status: e.status, content: e.content, durationMs: e.durationMs });
        if (e.errorDetail !== undefined) call.errorDetail = e.errorDetail;
        if (worker !== undefined) call.worker = worker;
        break;
      }
      case "nested": {
        const call = toolOf(stepOf(e.step), e.toolCallId, e.toolName, e.time);
        const list = nested.get(call) ?? [];
        list.push(e.event);
        nested.set(call, list);
        break;
      }
      case "step_end": {
        const step = stepOf(e.step);
        step.durationMs = e.durationMs;
        if (e.usage) {
          step.usage = e.usage;
          view.usage = e.usage;
          const cost = e.usage.steps.find((s) => s.step === e.step)?.costUsd;
          if (cost !== undefined) step.costUsd = cost;
        }
        break;
      }
      case "error": {
        const last = view.steps.at(-1);
        const error: ErrorView = { code: e.code, message: e.message, time: e.time, step: last?.step ?? 0 };
        view.errors.push(error);
        if (last) last.error = error;
        break;
      }
      case "run_end":
        view.status = e.status;
        view.endedAt = e.time;
        view.durationMs = e.usage.durationMs;
        view.usage = e.usage;
        if (e.output !== undefined) view.output = e.output;
        for (const s of e.usage.steps) {
          const step = view.steps.find((v) => v.step === s.step);
          if (step && s.costUsd !== undefined) step.costUsd = s.costUsd;
        }
        break;
      default:
        view.unknownEvents++;
    }
  }
  for (const [call, inner] of nested) call.subRuns = groupByRun(inner).map((evs) => buildRunView(evs));
  view.steps.sort((a, b) => a.step - b.step);
  if (view.durationMs === undefined && view.steps.length > 0) {
    const lastTime = events.at(-1)?.time ?? view.startedAt;
    view.durationMs = lastTime - view.startedAt;
  }
  return view;
}

/** Longest worker name kept: the name comes from the trace, which anyone could have written. */
const WORKER_NAME_MAX = 200;

/**
 * The scale-out worker that wrote an event: distributed runs' events carry a `worker` key (see
 * `glassloop enqueue --trace`); other traces have none. Read defensively: it is trace content.
 */
export function workerOf(event: AgentEvent): string | undefined {
  const worker = (event as { worker?: unknown }).worker;
  if (typeof worker !== "string" || worker === "") return undefined;
  return worker.length > WORKER_NAME_MAX ? `${worker.slice(0, WORKER_NAME_MAX - 1)}…` : worker;
}

function withOnce(list: string[] | undefined, item: string): string[] {
  if (!list) return [item];
  if (!list.includes(item)) list.push(item);
  return list;
}

/** Splits events into runs by `runId`, keeping each run's order. */
export function groupByRun(events: readonly AgentEvent[]): AgentEvent[][] {
  const runs = new Map<string, AgentEvent[]>();
  for (const e of events) {
    const list = runs.get(e.runId) ?? [];
    list.push(e);
    runs.set(e.runId, list);
  }
  return [...runs.values()];
}

/** The list line of a run. */
export function summarize(view: RunView, file?: string): RunSummary {
  const usage = view.usage;
  const tokens = usage ?? tokensFromSteps(view.steps);
  const firstError = view.errors[0];
  return {
    runId: view.runId,
    model: view.model,
    status: view.status,
    input: view.input.length > 200 ? `${view.input.slice(0, 200)}…` : view.input,
    startedAt: view.startedAt,
    ...(view.durationMs !== undefined && { durationMs: view.durationMs }),
    steps: view.steps.filter((s) => s.step > 0).length,
    toolCalls: view.steps.reduce((n, s) => n + s.tools.length, 0),
    inputTokens: tokens.inputTokens,
    outputTokens: tokens.outputTokens,
    ...(usage?.costUsd !== undefined && { costUsd: usage.costUsd }),
    ...(firstError && { errorCode: firstError.code }),
    ...(file !== undefined && { file }),
  };
}

function tokensFromSteps(steps: StepView[]): { inputTokens: number; outputTokens: number } {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const s of steps) {
    inputTokens += s.response?.usage.inputTokens ?? 0;
    outputTokens += s.response?.usage.outputTokens ?? 0;
  }
  return { inputTokens, outputTokens };
}
