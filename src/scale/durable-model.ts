import type { Redactor } from "../core/redact.js";
import { PieceRedactor } from "../core/redact-stream.js";
import type {
  FallbackInfo,
  Model,
  ModelDelta,
  ModelObserver,
  ModelRequest,
  ModelResponse,
  RateLimitWaitInfo,
} from "../models/model.js";
import type { RunSteps } from "./run-steps.js";

/** One thing a model reported during a call, kept so a replay reports it again in order. */
type Observed =
  | { kind: "request"; body: unknown; url?: string; attempt: number; model?: string }
  | { kind: "delta"; delta: ModelDelta }
  | { kind: "retry"; attempt: number; maxAttempts?: number; delayMs: number; error: string; model?: string }
  | { kind: "reasoning_dropped"; count: number; from: string[] }
  | ({ kind: "fallback" } & FallbackInfo)
  | ({ kind: "rate_limit_wait" } & RateLimitWaitInfo);

/** A model call as DBOS records it: the response (with its usage) and what was reported on the way. */
interface RecordedCall {
  response: ModelResponse;
  observed: Observed[];
}

/**
 * `model` with every call a DBOS step named `model`: the step's output is the response with its
 * usage, so a replayed run rebuilds its budget from it, and the exact request bodies and deltas
 * the call reported, so a replay's events are the first execution's. The deltas are scrubbed as
 * streams by `redactor` before DBOS records them (the step's output is otherwise scrubbed value by
 * value, which misses a secret split across two deltas).
 */
export function durableModel(model: Model, steps: RunSteps, redactor: Redactor): Model {
  return {
    id: model.id,
    ...(model.price && { price: model.price }),
    async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
      let live = false;
      const recorded = await steps.step<RecordedCall>(
        "model",
        async () => {
          live = true;
          const observed: Observed[] = [];
          const response = await model.generate(request, recording(observer, observed));
          return { response, observed: scrubbedStreams(observed, redactor) };
        },
        // Wire bodies and responses are JSON: recorded as one string, not walked value by value.
        { json: true },
      );
      // A replay: the call did not happen here, so what it reported is reported now, in order.
      if (!live) for (const item of recorded.observed) replay(observer, item);
      return recorded.response;
    },
  };
}

function recording(observer: ModelObserver, observed: Observed[]): ModelObserver {
  return {
    onRequest(wire) {
      observed.push({
        kind: "request",
        body: wire.body,
        attempt: wire.attempt,
        ...(wire.url !== undefined && { url: wire.url }),
        ...(wire.model !== undefined && { model: wire.model }),
      });
      observer.onRequest(wire);
    },
    onDelta(delta) {
      observed.push({ kind: "delta", delta });
      observer.onDelta?.(delta);
    },
    onRetry(info) {
      // The typed cause stays out of the step's output: it is for the live caller only.
      const { cause: _, retryAfterMs: __, ...kept } = info;
      observed.push({ kind: "retry", ...kept });
      observer.onRetry?.(info);
    },
    onReasoningDropped(info) {
      observed.push({ kind: "reasoning_dropped", ...info });
      observer.onReasoningDropped?.(info);
    },
    onFallback(info) {
      observed.push({ kind: "fallback", ...info });
      observer.onFallback?.(info);
    },
    onRateLimitWait(info) {
      observed.push({ kind: "rate_limit_wait", ...info });
      observer.onRateLimitWait?.(info);
    },
  };
}

/**
 * `observed` with each stream of deltas (the text, the reasoning, each tool call's arguments)
 * scrubbed as one stream: the same deltas, in the same order, each with its part of the scrubbed
 * stream (a split secret is replaced once, where it begins), so a replay emits as many events.
 */
function scrubbedStreams(observed: Observed[], redactor: Redactor): Observed[] {
  const out = observed.slice();
  const streams = new Map<string, { redact: PieceRedactor; waiting: number[] }>();
  const place = (stream: { waiting: number[] }, pieces: string[]) => {
    for (const piece of pieces) {
      const at = stream.waiting.shift();
      const item = at === undefined ? undefined : out[at];
      if (at === undefined || item?.kind !== "delta") continue;
      const delta = item.delta;
      out[at] = {
        kind: "delta",
        delta: delta.type === "tool_call" ? { ...delta, argumentsDelta: piece } : { ...delta, text: piece },
      };
    }
  };
  for (const [at, item] of out.entries()) {
    if (item.kind !== "delta") continue;
    const delta = item.delta;
    const key = delta.type === "tool_call" ? `tool_call:${delta.index}` : delta.type;
    let stream = streams.get(key);
    if (!stream) {
      stream = { redact: new PieceRedactor(redactor), waiting: [] };
      streams.set(key, stream);
    }
    stream.waiting.push(at);
    place(stream, stream.redact.push(delta.type === "tool_call" ? delta.argumentsDelta : delta.text));
  }
  for (const stream of streams.values()) place(stream, stream.redact.end());
  return out;
}

function replay(observer: ModelObserver, item: Observed): void {
  switch (item.kind) {
    case "request":
      observer.onRequest({
        body: item.body,
        attempt: item.attempt,
        ...(item.url !== undefined && { url: item.url }),
        ...(item.model !== undefined && { model: item.model }),
      });
      return;
    case "delta":
      observer.onDelta?.(item.delta);
      return;
    case "retry": {
      const { kind: _, ...info } = item;
      observer.onRetry?.(info);
      return;
    }
    case "reasoning_dropped":
      observer.onReasoningDropped?.({ count: item.count, from: item.from });
      return;
    case "fallback": {
      const { kind: _, ...info } = item;
      observer.onFallback?.(info);
      return;
    }
    case "rate_limit_wait": {
      const { kind: _, ...info } = item;
      observer.onRateLimitWait?.(info);
      return;
    }
  }
}
