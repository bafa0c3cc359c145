import type { Attributes, Span, SpanKind, Tracer } from "@opentelemetry/api";
import { importOptional, OTEL_API } from "../core/optional-dependency.js";
import { type RedactionOptions, Redactor } from "../core/redact.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import { withoutImageBytes } from "./images.js";
import { addSpanEvent, isSpanEventSource } from "./otel-span-events.js";
import { workerOf } from "./trace-worker.js";

// A peer the user installs: without it, importing glassloop/otel fails with the install command,
// not Node's bare "Cannot find package".
const {
  context,
  SpanKind: Kind,
  SpanStatusCode,
  trace,
} = await importOptional(OTEL_API, () => import("@opentelemetry/api"));

/** Options of the OpenTelemetry listener. */
export interface OtelOptions {
  /** Where spans go (default: the global tracer provider's `glassloop` tracer). */
  tracer?: Tracer;
  /** Record prompts, responses, tool arguments and results on spans (default false: they may be sensitive). */
  recordContent?: boolean;
  /**
   * Names the top-level run (`gen_ai.agent.name`, the run span's name) instead of the agent's own
   * `name`; nested runs (sub-agents, evaluators) always carry their own agent's name.
   */
  agentName?: string;
  /** Scrubbed from recorded content, on top of API keys and credential headers. */
  redaction?: RedactionOptions;
}

interface RunSpans {
  run: Span;
  steps: Map<number, Span>;
  models: Map<number, Span>;
  tools: Map<string, Span>;
  model: string;
  error?: string;
}

/**
 * An event, optionally with the scale-out worker that wrote it: a distributed run's events as
 * `handle.events()` yields them (`{ ...item.event, worker: item.worker }`) or as its trace has them.
 */
export type WorkerTaggedEvent = AgentEvent & { worker?: string };

/**
 * An event listener that turns a run's events into OpenTelemetry spans following the GenAI
 * semantic conventions: `invoke_agent` for the run, a span per step, `chat` for each model call,
 * `execute_tool` for each tool call. Span times are the events' times. Events of a distributed
 * run that carry their `worker` put it on each span as `glassloop.worker` (the worker that ran
 * it, the last one for a span that changed workers) and `glassloop.workers` (all, when several).
 */
export function otelListener(options: OtelOptions = {}): (event: WorkerTaggedEvent) => void {
  const tracer = options.tracer ?? trace.getTracer("glassloop");
  const redactor = options.recordContent ? new Redactor(options.redaction) : undefined;
  const runs = new Map<string, RunSpans>();
  const content = (value: unknown): string | undefined => {
    if (!redactor) return undefined;
    // Like the JSONL trace: image and PDF bytes as a hash and size, never whole in a span.
    return redactor.text(typeof value === "string" ? value : JSON.stringify(withoutImageBytes(value)));
  };

  // The workers seen on each open span, in order (a span changes workers when one dies mid-run).
  const workersOf = new WeakMap<Span, string[]>();
  const tag = (span: Span | undefined, worker: string | undefined): void => {
    if (span === undefined || worker === undefined) return;
    const seen = workersOf.get(span);
    if (seen?.at(-1) === worker) return;
    const list = seen ?? [];
    if (!list.includes(worker)) list.push(worker);
    workersOf.set(span, list);
    span.setAttribute("glassloop.worker", worker);
    if (list.length > 1) span.setAttribute("glassloop.workers", [...list]);
  };

  const child = (parent: Span, name: string, kind: SpanKind, attributes: Attributes, time: number): Span =>
    tracer.startSpan(name, { kind, attributes, startTime: time }, trace.setSpan(context.active(), parent));

  const handle = (event: AgentEvent, parentSpan?: Span, outerWorker?: string): void => {
    // A nested run's events are wrapped in the parent's, which carries the worker.
    const worker = workerOf(event) ?? outerWorker;
    if (event.type === "run_start") {
      const { provider, model } = splitModel(event.model);
      const name = parentSpan ? event.agent : (options.agentName ?? event.agent);
      const attributes: Attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": model,
        "glassloop.run.id": event.runId,
        ...(name !== undefined && { "gen_ai.agent.name": name }),
        ...(redactor && { "glassloop.run.input": content(event.input) }),
      };
      const spanName = name === undefined ? "invoke_agent" : `invoke_agent ${name}`;
      const run = parentSpan
        ? child(parentSpan, spanName, Kind.INTERNAL, attributes, event.time)
        : tracer.startSpan(spanName, { kind: Kind.INTERNAL, attributes, startTime: event.time });
      tag(run, worker);
      runs.set(event.runId, {
        run,
        steps: new Map(),
        models: new Map(),
        tools: new Map(),
        model: event.model,
      });
      return;
    }
    const spans = runs.get(event.runId);
    if (!spans) return;
    const stepSpan = (step: number) => spans.steps.get(step) ?? spans.run;
    tag(spans.run, worker);
    if ("step" in event && typeof event.step === "number") tag(spans.steps.get(event.step), worker);
    if (isSpanEventSource(event)) {
      const step = spans.steps.get(event.step);
      const model = spans.models.get(event.step);
      const tool =
        event.type === "guardrail" && event.toolCallId ? spans.tools.get(event.toolCallId) : undefined;
      addSpanEvent(
        event,
        { run: spans.run, ...(step && { step }), ...(model && { model }), ...(tool && { tool }) },
        content,
      );
      return;
    }
    switch (event.type) {
      case "step_start": {
        const span = child(
          spans.run,
          `step ${event.step}`,
          Kind.INTERNAL,
          { "glassloop.step": event.step },
          event.time,
        );
        tag(span, worker);
        spans.steps.set(event.step, span);
        break;
      }
      case "model_request": {
        if (spans.models.has(event.step)) break; // a retry: the same call, one span
        const { provider, model } = splitModel(event.model);
        const span = child(
          stepSpan(event.step),
          `chat ${model}`,
          Kind.CLIENT,
          {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model,
            ...(event.url !== undefined && { "url.full": redactUrl(event.url) }),
            ...(redactor && { "gen_ai.input.messages": content(event.body) }),
          },
          event.time,
        );
        tag(span, worker);
        spans.models.set(event.step, span);
        break;
      }
      case "model_response": {
        const span = spans.models.get(event.step);
        if (!span) break;
        tag(span, worker);
        if (event.model !== undefined) {
          // The span was named for the first model asked; the answer may have come from another.
          const answered = splitModel(event.model);
          span.setAttributes({
            "gen_ai.response.model": answered.model,
            "glassloop.answered.provider": answered.provider,
          });
        }
        span.setAttributes({
          "gen_ai.usage.input_tokens": event.usage.inputTokens,
          "gen_ai.usage.output_tokens": event.usage.outputTokens,
          "gen_ai.response.finish_reasons": [event.finishReason],
          ...(event.usage.cachedInputTokens !== undefined && {
            "gen_ai.usage.cache_read.input_tokens": event.usage.cachedInputTokens,
          }),
          ...(event.usage.cacheWriteInputTokens !== undefined && {
            "gen_ai.usage.cache_creation.input_tokens": event.usage.cacheWriteInputTokens,
          }),
          ...(event.usage.reasoningTokens !== undefined && {
            "gen_ai.usage.reasoning.output_tokens": event.usage.reasoningTokens,
          }),
          ...(redactor && {
            "gen_ai.output.messages": content([
              {
                role: "assistant",
                content: event.text,
                toolCalls: event.toolCalls,
                finishReason: event.finishReason,
              },
            ]),
          }),
        });
        span.end(event.time);
        spans.models.delete(event.step);
        break;
      }
      case "tool_call": {
        const span = child(
          stepSpan(event.step),
          `execute_tool ${event.toolName}`,
          Kind.INTERNAL,
          {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": event.toolName,
            "gen_ai.tool.call.id": event.toolCallId,
            "gen_ai.tool.type": "function",
            ...(redactor && { "gen_ai.tool.call.arguments": content(event.arguments) }),
          },
          event.time,
        );
        tag(span, worker);
        spans.tools.set(event.toolCallId, span);
        break;
      }
      case "tool_result": {
        const span = spans.tools.get(event.toolCallId);
        if (!span) break;
        tag(span, worker);
        span.setAttribute("glassloop.tool.status", event.status);
        if (redactor) span.setAttribute("gen_ai.tool.call.result", content(event.content) ?? "");
        if (event.status !== "ok") {
          span.setAttribute("error.type", event.status);
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: redactor ? content(event.content) : event.status,
          });
        }
        span.end(event.time);
        spans.tools.delete(event.toolCallId);
        break;
      }
      case "nested": {
        const tool = spans.tools.get(event.toolCallId) ?? stepSpan(event.step);
        handle(event.event, tool, worker);
        break;
      }
      case "step_end": {
        // A model call still open here failed; its error follows, but the step is over.
        const open = spans.models.get(event.step);
        if (open) {
          open.setStatus({ code: SpanStatusCode.ERROR });
          open.end(event.time);
          spans.models.delete(event.step);
        }
        const step = spans.steps.get(event.step);
        step?.end(event.time);
        spans.steps.delete(event.step);
        break;
      }
      case "error":
        spans.error = event.code;
        spans.run.setAttribute("error.type", event.code);
        spans.run.setStatus({ code: SpanStatusCode.ERROR, message: event.message });
        break;
      case "run_end": {
        for (const span of [...spans.tools.values(), ...spans.models.values(), ...spans.steps.values()])
          span.end(event.time);
        spans.run.setAttributes({
          "glassloop.run.status": event.status,
          "gen_ai.usage.input_tokens": event.usage.inputTokens,
          "gen_ai.usage.output_tokens": event.usage.outputTokens,
          ...(event.usage.costUsd !== undefined && { "glassloop.usage.cost_usd": event.usage.costUsd }),
          ...(redactor && event.output !== undefined && { "glassloop.run.output": content(event.output) }),
        });
        spans.run.end(event.time);
        runs.delete(event.runId);
        break;
      }
      default:
        break;
    }
  };
  return (event) => handle(event);
}

/** `openai:gpt-4o-mini` → provider `openai`, model `gpt-4o-mini`. */
function splitModel(id: string): { provider: string; model: string } {
  const colon = id.indexOf(":");
  return colon > 0
    ? { provider: id.slice(0, colon), model: id.slice(colon + 1) }
    : { provider: "unknown", model: id };
}

/** URLs may carry keys as query parameters (Gemini's `?key=`); spans never get them. */
function redactUrl(url: string): string {
  return new Redactor({ env: {} }).text(url);
}
