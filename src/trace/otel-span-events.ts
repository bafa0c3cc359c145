import type { Span } from "@opentelemetry/api";
import type {
  AgentEvent,
  GuardrailEvent,
  ModelFallbackEvent,
  ModelRetryEvent,
  RateLimitWaitEvent,
} from "../core/vocabulary/events.js";

/** Events that are no span of their own but a span event on the span they happened in. */
export type SpanEventSource = ModelRetryEvent | ModelFallbackEvent | RateLimitWaitEvent | GuardrailEvent;

/** The open spans of a run a span event can land on. */
export interface OpenSpans {
  run: Span;
  step?: Span;
  model?: Span;
  /** The tool call's span, for events about one call (a tool guardrail). */
  tool?: Span;
}

/** Whether `event` becomes a span event (see {@link addSpanEvent}). */
export function isSpanEventSource(event: AgentEvent): event is SpanEventSource {
  return (
    event.type === "model_retry" ||
    event.type === "model_fallback" ||
    event.type === "rate_limit_wait" ||
    event.type === "guardrail"
  );
}

/**
 * Adds `event` as a span event: a retry or a fallback on the model call's span, a rate-limit wait
 * on the step's, a guardrail's verdict on the tool call it judged (else the step's, else the
 * run's). `content` returns what may be recorded of a text (undefined: content is not recorded).
 */
export function addSpanEvent(
  event: SpanEventSource,
  spans: OpenSpans,
  content: (value: unknown) => string | undefined,
): void {
  switch (event.type) {
    case "model_retry":
      spans.model?.addEvent(
        "retry",
        { attempt: event.attempt, "glassloop.retry.delay_ms": event.delayMs, "error.message": event.error },
        event.time,
      );
      return;
    case "model_fallback":
      spans.model?.addEvent(
        "fallback",
        {
          "glassloop.fallback.from": event.from,
          ...(event.to !== undefined && { "glassloop.fallback.to": event.to }),
          "glassloop.fallback.reason": event.reason,
          "glassloop.fallback.elapsed_ms": event.elapsedMs,
          ...(event.status !== undefined && { "http.response.status_code": event.status }),
          "error.message": event.error,
        },
        event.time,
      );
      return;
    case "rate_limit_wait":
      spans.step?.addEvent(
        "rate_limit_wait",
        {
          "glassloop.rate_limit.key": event.key,
          "glassloop.rate_limit.limit": event.limit,
          "glassloop.rate_limit.wait_ms": event.waitMs,
        },
        event.time,
      );
      return;
    case "guardrail": {
      // What the model was told or why the run stopped may quote the model or a tool: it is
      // content, recorded (and redacted) only when content is.
      const message = event.message === undefined ? undefined : content(event.message);
      (spans.tool ?? spans.step ?? spans.run).addEvent(
        "guardrail",
        {
          "glassloop.guardrail.name": event.name,
          "glassloop.guardrail.stage": event.stage,
          "glassloop.guardrail.action": event.action,
          "glassloop.guardrail.duration_ms": event.durationMs,
          ...(event.toolCallId !== undefined && { "gen_ai.tool.call.id": event.toolCallId }),
          ...(event.toolName !== undefined && { "gen_ai.tool.name": event.toolName }),
          ...(message !== undefined && { "glassloop.guardrail.message": message }),
        },
        event.time,
      );
      return;
    }
  }
}
