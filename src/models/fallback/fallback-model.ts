import { ConfigError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import { sleep } from "../../core/sleep.js";
import type { FallbackReason } from "../../core/vocabulary/events.js";
import { RequestTimeoutError } from "../errors.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../model.js";
import { type BreakerOptions, type CircuitBreakers, sharedBreakers } from "./breaker.js";
import { type FallbackAttempt, FallbackExhaustedError } from "./errors.js";
import { defaultReason, statusOf } from "./reasons.js";

/** How a fallback chain decides. */
export interface FallbackOptions {
  /**
   * Your rule, asked first for every failure: `true` falls over to the next model, `false` never
   * does (the error ends the call), `undefined` leaves it to the default rule (429, 5xx, overload,
   * timeouts and network failures fall over; a 400, a bad key or a prompt too long never do).
   */
  on?: (error: unknown, model: Model) => boolean | undefined;
  /**
   * A `Retry-After` up to this long is waited out on the same model; a longer one moves on at once
   * (default 2,000 ms). The last model of the chain waits as its own retry policy says.
   */
  retryAfterThresholdMs?: number;
  /** The per-model circuit breaker (default on: 5 failures open it for 30 s); `false` turns it off. */
  breaker?: BreakerOptions | false;
  /**
   * Time each model gets until its first streamed delta (or, unstreamed, its answer) before the
   * chain moves on; default none (each model's own `http` timeouts and deadline apply).
   */
  timeoutMs?: number;
}

/** Default `retryAfterThresholdMs`: a server's wait up to 2 s is cheaper than another model's cold start. */
export const DEFAULT_RETRY_AFTER_THRESHOLD_MS = 2_000;
const DEFAULT_BREAKER_FAILURES = 5;
const DEFAULT_BREAKER_COOLDOWN_MS = 30_000;
/** Short `Retry-After` waits the chain itself makes on one model in one call (its retries being off). */
const MAX_SAME_MODEL_WAITS = 2;

/** Why the chain aborted a model's call: the reason is in `cut`, not in this marker. */
class MoveOn extends Error {}

type Outcome = { ok: true; response: ModelResponse } | { ok: false; error: unknown; delivered: boolean };

/**
 * Models tried in order until one answers. It falls over on rate limits, overloads, server errors,
 * timeouts and network failures that happen before the first streamed delta; after a delta reached
 * the caller the call fails as any model call does (the answer cannot be taken back). It cuts a
 * model's own retries short instead of waiting them out (only a `Retry-After` under the threshold
 * is waited for), skips models whose circuit breaker is open, and reports each switch through
 * `onFallback`. The transcript is converted by each model as it is sent: reasoning of another
 * provider is left out (with `reasoning_dropped`), Gemini 3 gets the documented placeholder
 * signature on calls another model made.
 */
export class FallbackModel implements Model {
  readonly id: string;
  /** The first model's price when every model has one (a cost limit needs each answer priced). */
  readonly price?: ModelPrice;
  /**
   * The smallest known window of the chain: the transcript must fit whichever model answers, so a
   * memory strategy sized by the window (`at: 0.8`) keeps it small enough for each of them.
   */
  readonly contextWindow?: number;
  readonly models: readonly Model[];
  readonly #on: FallbackOptions["on"];
  readonly #thresholdMs: number;
  readonly #timeoutMs: number | undefined;
  readonly #breakers: CircuitBreakers | undefined;
  readonly #failures: number;
  readonly #cooldownMs: number;

  constructor(models: readonly Model[], options: FallbackOptions = {}) {
    if (models.length === 0) throw new ConfigError("A fallback chain needs at least one model");
    const ids = models.map((m) => m.id);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined)
      throw new ConfigError(`A fallback chain names "${twice}" twice; each model may appear once`);
    this.models = [...models];
    this.id = models.length === 1 ? (ids[0] as string) : `fallback(${ids.join(", ")})`;
    const first = models[0]?.price;
    if (first !== undefined && models.every((m) => m.price !== undefined)) this.price = first;
    const windows = models.flatMap((m) => (m.contextWindow === undefined ? [] : [m.contextWindow]));
    if (windows.length > 0) this.contextWindow = Math.min(...windows);
    this.#on = options.on;
    this.#thresholdMs = nonNegative(
      options.retryAfterThresholdMs ?? DEFAULT_RETRY_AFTER_THRESHOLD_MS,
      "retryAfterThresholdMs",
    );
    if (options.timeoutMs !== undefined) this.#timeoutMs = positive(options.timeoutMs, "timeoutMs");
    const breaker = options.breaker ?? {};
    this.#breakers = breaker === false ? undefined : (breaker.registry ?? sharedBreakers);
    this.#failures =
      breaker === false ? 0 : positive(breaker.failures ?? DEFAULT_BREAKER_FAILURES, "breaker.failures");
    this.#cooldownMs =
      breaker === false
        ? 0
        : nonNegative(breaker.cooldownMs ?? DEFAULT_BREAKER_COOLDOWN_MS, "breaker.cooldownMs");
  }

  /** Asks each model in turn, as described on the class; the answer names the model that gave it. */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const attempts: FallbackAttempt[] = [];
    let lastError: unknown;
    for (const [index, model] of this.models.entries()) {
      const next = this.models[index + 1]?.id;
      const started = performance.now();
      const leave = (reason: FallbackReason, error: string, status?: number) => {
        attempts.push({ model: model.id, reason, error, ...(status !== undefined && { status }) });
        observer.onFallback?.({
          from: model.id,
          ...(next !== undefined && { to: next }),
          reason,
          error,
          ...(status !== undefined && { status }),
          // A model skipped by its open breaker was never asked: no time was spent on it, whatever the clock says.
          elapsedMs: reason === "circuit_open" ? 0 : Math.round(performance.now() - started),
        });
      };
      const admitted = this.#breakers?.admit(model.id, this.#cooldownMs) ?? { allowed: true, probe: false };
      if (!admitted.allowed) {
        const since =
          admitted.openedAt === undefined ? "" : ` since ${new Date(admitted.openedAt).toISOString()}`;
        leave("circuit_open", `circuit breaker open${since}`);
        continue;
      }
      for (let waits = 0; ; waits++) {
        const outcome = await this.#attempt(model, request, observer, next === undefined);
        if (outcome.ok) {
          this.#breakers?.success(model.id);
          return answered(outcome.response, model);
        }
        const { error } = outcome;
        if (request.signal.aborted) {
          this.#breakers?.release(model.id);
          throw error;
        }
        const reason = this.#reason(error, model);
        if (reason === undefined) {
          this.#breakers?.release(model.id);
          throw error;
        }
        this.#breakers?.failure(model.id, this.#failures);
        // Part of the answer reached the caller: it cannot be taken back, so no other model may answer.
        if (outcome.delivered) throw error;
        const wait = retryAfterOf(error);
        const stillClosed = this.#breakers?.state(model.id, this.#cooldownMs) !== "open";
        if (wait !== undefined && wait <= this.#thresholdMs && waits < MAX_SAME_MODEL_WAITS && stillClosed) {
          observer.onRetry?.({
            attempt: waits + 2,
            delayMs: wait,
            error: messageOf(error),
            retryAfterMs: wait,
            model: model.id,
          });
          await sleep(wait, request.signal);
          continue;
        }
        lastError = error;
        leave(reason, messageOf(error), statusOf(error));
        break;
      }
    }
    throw new FallbackExhaustedError(attempts, { cause: lastError });
  }

  /** One call of `model`, cut short when its own retry policy would make the chain wait for nothing. */
  async #attempt(
    model: Model,
    request: ModelRequest,
    observer: ModelObserver,
    last: boolean,
  ): Promise<Outcome> {
    const controller = new AbortController();
    const parent = request.signal;
    const onAbort = () => controller.abort(parent.reason);
    if (parent.aborted) controller.abort(parent.reason);
    else parent.addEventListener("abort", onAbort, { once: true });
    let delivered = false;
    let cut: unknown;
    const moveOn = (why: unknown) => {
      if (cut !== undefined || controller.signal.aborted) return;
      cut = why;
      controller.abort(new MoveOn("moving on to the next model"));
    };
    const timeoutMs = this.#timeoutMs;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => moveOn(new RequestTimeoutError(model.id, timeoutMs)), timeoutMs);
    const wrapped: ModelObserver = {
      onRequest: (wire) => observer.onRequest({ ...wire, model: wire.model ?? model.id }),
      onDelta: (delta) => {
        if (!delivered) {
          delivered = true;
          clearTimeout(timer);
        }
        observer.onDelta?.(delta);
      },
      onRetry: (info) => {
        const cause = info.cause ?? new Error(info.error);
        const serverWaitIsShort = info.retryAfterMs !== undefined && info.retryAfterMs <= this.#thresholdMs;
        // The model's own retry would only delay the switch: the next model answers instead.
        if (!last && !serverWaitIsShort && this.#reason(cause, model) !== undefined) {
          moveOn(cause);
          return;
        }
        observer.onRetry?.({ ...info, model: info.model ?? model.id });
      },
      onReasoningDropped: (info) => observer.onReasoningDropped?.(info),
      onFallback: (info) => observer.onFallback?.(info),
      onRateLimitWait: (info) => observer.onRateLimitWait?.(info),
    };
    try {
      const response = await untilAborted(
        model.generate({ ...request, signal: controller.signal }, wrapped),
        controller.signal,
      );
      return { ok: true, response };
    } catch (error) {
      return { ok: false, error: cut ?? error, delivered };
    } finally {
      clearTimeout(timer);
      parent.removeEventListener("abort", onAbort);
    }
  }

  #reason(error: unknown, model: Model): FallbackReason | undefined {
    const verdict = this.#on?.(error, model);
    if (verdict === false) return undefined;
    const reason = defaultReason(error);
    if (verdict === true) return reason ?? "user_rule";
    return reason;
  }
}

/** The answer, naming the model that gave it and priced at that model's price. */
function answered(response: ModelResponse, model: Model): ModelResponse {
  // A chain inside a chain already named its own member.
  if (response.answeredBy !== undefined) return response;
  return {
    ...response,
    answeredBy: model.id,
    ...(model.price !== undefined && response.price === undefined && { price: model.price }),
  };
}

function retryAfterOf(error: unknown): number | undefined {
  const wait = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof wait === "number" && Number.isFinite(wait) && wait >= 0 ? wait : undefined;
}

function messageOf(error: unknown): string {
  // Provider errors are redacted where they are made; the rest gets the same treatment on the way out.
  return redact(error instanceof Error ? error.message : String(error), []);
}

/** `promise`, or a rejection when `signal` fires: a model that ignores its signal cannot hold the chain. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new ConfigError(`fallback ${name} must be a positive number`);
  return value;
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new ConfigError(`fallback ${name} must be 0 or more`);
  return value;
}
