import { RateLimitError } from "../errors.js";
import type { Model, ModelObserver, ModelRequest, ModelResponse } from "../model.js";
import { type Limiter, RateLimiter, type RateLimits } from "./limiter.js";

/** Characters per token of the estimate a limiter counts before the answer says the truth. */
const CHARS_PER_TOKEN = 3.5;

// One limiter per key for the whole process: every run, agent and chain using a key shares it.
const limiters = new Map<string, RateLimiter>();
const global = new Map<string, RateLimits>();

/**
 * The process-wide limiter for `key` (e.g. `openai`, or `openai:team-a` for a second key),
 * created with `limits` on first use; later calls with other limits replace them.
 */
export function rateLimiter(key: string, limits?: RateLimits): RateLimiter {
  let limiter = limiters.get(key);
  if (!limiter || limits !== undefined) {
    limiter = new RateLimiter(key, limits ?? global.get(key) ?? {});
    limiters.set(key, limiter);
  }
  return limiter;
}

/**
 * Sets the limits of every model of `provider` resolved from a string afterwards (`"openai:…"`),
 * shared by all runs in the process; `undefined` removes them.
 */
export function setRateLimits(provider: string, limits: RateLimits | undefined): void {
  if (limits === undefined) {
    global.delete(provider);
    limiters.delete(provider);
    return;
  }
  global.set(provider, limits);
  limiters.set(provider, new RateLimiter(provider, limits));
}

/** The limits set for `provider` with `setRateLimits`, if any. */
export function globalRateLimits(provider: string): RateLimits | undefined {
  return global.get(provider);
}

/** Options of `rateLimited`: the limits, and the key they are shared under. */
export interface RateLimitedOptions extends RateLimits {
  /** Whose limit this is: default the model's provider (`openai` of `openai:gpt-4o`); name a key to split. */
  key?: string;
  /**
   * A limiter to use instead of this process's one for `key`: e.g. a `PostgresRateLimiter`
   * (`glassloop/postgres`), which holds one limit across every worker of a scale-out; the
   * limits above are then its own.
   */
  limiter?: Limiter;
}

/**
 * `model` behind a client-side limiter shared by every run in the process: requests, tokens per
 * window and calls in flight. A call that must wait reports it (`rate_limit_wait`) and waits, at
 * most `maxWaitMs`, within its own signal; a 429 from the provider tightens the limiter for
 * everyone (its `Retry-After` pauses the key, its rate headers lower the ceilings).
 */
export class RateLimitedModel implements Model {
  readonly id: string;
  readonly price?: Model["price"];
  readonly contextWindow?: number;
  readonly limiter: Limiter;
  readonly #model: Model;

  constructor(model: Model, limiter: Limiter) {
    this.#model = model;
    this.id = model.id;
    if (model.price !== undefined) this.price = model.price;
    if (model.contextWindow !== undefined) this.contextWindow = model.contextWindow;
    // The provider's own count is one extra call, not a generation: it takes no place in the limiter.
    if (model.countTokens) this.countTokens = (request) => model.countTokens?.(request) as Promise<number>;
    this.limiter = limiter;
  }

  /** The model's own count of a request's input tokens, where it has a count endpoint. */
  readonly countTokens?: (request: ModelRequest) => Promise<number>;

  /** Waits for room, calls the model, and gives back its place with the tokens really used. */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const permit = await this.limiter.acquire(estimate(request), request.signal, ({ limit, waitMs }) =>
      observer.onRateLimitWait?.({
        model: this.id,
        key: this.limiter.key,
        limit,
        waitMs: Math.round(waitMs),
      }),
    );
    // A 429 the model retries on its own teaches the limiter as much as one it gives up on.
    const learning: ModelObserver = {
      ...observer,
      onRequest: (wire) => {
        permit.sent();
        observer.onRequest(wire);
      },
      onRetry: (info) => {
        this.#learn(info.cause);
        observer.onRetry?.(info);
      },
    };
    try {
      const response = await this.#model.generate(request, learning);
      permit.release(response.usage.inputTokens + response.usage.outputTokens);
      return response;
    } catch (error) {
      permit.release();
      this.#learn(error);
      throw error;
    }
  }

  #learn(error: unknown): void {
    if (!(error instanceof RateLimitError) || error.provider === "client") return;
    this.limiter.learn({
      ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
      headers: error.rateHeaders,
    });
  }
}

/** `model` limited by `options` (shared under `options.key`, default its provider). */
export function rateLimited(model: Model, options: RateLimitedOptions): RateLimitedModel {
  const { key, limiter, ...limits } = options;
  return new RateLimitedModel(model, limiter ?? rateLimiter(key ?? providerOf(model.id), limits));
}

/** The provider part of a model id. */
export function providerOf(id: string): string {
  const colon = id.indexOf(":");
  return colon > 0 ? id.slice(0, colon) : id;
}

/** Tokens the request will take, estimated before it is sent: its text and the output it may ask for. */
function estimate(request: ModelRequest): number {
  let chars = (request.instructions ?? "").length;
  for (const m of request.messages) {
    chars += m.content.length;
    if (m.role === "assistant")
      for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length;
  }
  if (request.tools.length > 0) chars += JSON.stringify(request.tools).length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + (request.maxOutputTokens ?? 0);
}
