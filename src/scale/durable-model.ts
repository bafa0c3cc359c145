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
 * the call reported, so a replay's events are the first execution's.
 */
export function durableModel(model: Model, steps: RunSteps): Model {
  return {
    id: model.id,
    ...(model.price && { price: model.price }),
    async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
      let live = false;
      const recorded = await steps.step<RecordedCall>("model", async () => {
        live = true;
        const observed: Observed[] = [];
        const response = await model.generate(request, recording(observer, observed));
        return { response, observed };
      });
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
