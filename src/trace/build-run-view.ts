import type { TraceProblem } from "../core/trace-format.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { ErrorView, RunView, StepView, ToolCallView } from "./run-view.js";
import { workerOf } from "./trace-worker.js";

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
      case "model_fallback": {
        const step = stepOf(e.step);
        step.fallbacks ??= [];
        step.fallbacks.push({
          from: e.from,
          ...(e.to !== undefined && { to: e.to }),
          reason: e.reason,
          error: e.error,
          ...(e.status !== undefined && { status: e.status }),
          elapsedMs: e.elapsedMs,
          time: e.time,
        });
        break;
      }
      case "rate_limit_wait": {
        const step = stepOf(e.step);
        step.rateLimitWaits ??= [];
        step.rateLimitWaits.push({ model: e.model, limit: e.limit, waitMs: e.waitMs, time: e.time });
        break;
      }
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
      case "guardrail": {
        const { type: _t, runId: _r, step, ...verdict } = e;
        const judged = stepOf(step);
        judged.guardrails ??= [];
        judged.guardrails.push(verdict);
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
