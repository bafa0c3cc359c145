import { GlassloopError } from "../../errors.js";
import {
  errorFields,
  errorForStatus,
  NetworkError,
  ProviderError,
  ProviderProtocolError,
  RequestTimeoutError,
  StreamIdleTimeoutError,
} from "../errors.js";
import type { ModelObserver } from "../model.js";
import { redact } from "./redact.js";
import {
  backoffMs,
  DEFAULT_RETRY,
  isRetryableStatus,
  type RetryPolicy,
  retryAfterMs,
  sleep,
} from "./retry.js";
import { readEvents, SseFormatError, type SseHandler } from "./sse.js";

/** Transport settings every provider accepts (as its `http` option). */
export interface HttpOptions {
  /** Retry policy; unset fields keep `DEFAULT_RETRY`. `{ maxRetries: 0 }` turns retries off. */
  retry?: Partial<RetryPolicy>;
  /** Time allowed until the response headers (and, without streaming, the whole body) arrive. */
  timeoutMs?: number;
  /** Longest silence allowed between two chunks of a stream. */
  streamIdleTimeoutMs?: number;
  /** The fetch to use; Node's global one by default. */
  fetch?: typeof globalThis.fetch;
}

/** Default request timeout: 10 minutes, for long non-streamed generations. */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** Default stream idle timeout: 2 minutes without a byte. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;

/** One JSON POST a provider wants made. */
export interface HttpCall {
  /** Label used in error messages, e.g. `openai`. */
  provider: string;
  url: string;
  /** Request headers, secrets included; `content-type: application/json` is added. */
  headers: Record<string, string>;
  /**
   * The JSON body. It is serialized once, and this same object is what `observer.onRequest`
   * receives on every attempt, so the event shows exactly the bytes sent. Do not mutate it later.
   */
  body: unknown;
  signal: AbortSignal;
  observer: ModelObserver;
  /** Values (API keys) that must never appear in an error, event or log. */
  secrets?: readonly string[];
}

/** A successful JSON response. */
export interface JsonReply {
  status: number;
  headers: Headers;
  body: unknown;
}

/** How an event stream ended: `complete` when the handler saw its protocol's end marker. */
export interface StreamEnd {
  complete: boolean;
  headers: Headers;
}

/** POSTs `call.body` and returns the parsed JSON answer, with retries, timeouts and typed errors. */
export function postJson(call: HttpCall, options: HttpOptions = {}): Promise<JsonReply> {
  return send(call, options, "application/json", async (response, attempt) => {
    const text = await response.text();
    attempt.requestDone();
    try {
      return { status: response.status, headers: response.headers, body: JSON.parse(text) as unknown };
    } catch (cause) {
      throw new ProviderProtocolError(
        `${call.provider} sent a response that is not JSON`,
        { provider: call.provider, status: response.status, excerpt: excerptOf(text, call) },
        { cause },
      );
    }
  });
}

/**
 * POSTs `call.body` and feeds the server-sent events of the answer to `onEvent`. Until the first
 * event has been handled a failure is retried like any other; after it, never (the caller has
 * already shown part of the answer), and a break ends in a typed error.
 */
export function postEvents(
  call: HttpCall,
  onEvent: SseHandler,
  options: HttpOptions = {},
): Promise<StreamEnd> {
  return send(call, options, "text/event-stream", async (response, attempt) => {
    const type = response.headers.get("content-type") ?? "";
    if (type.includes("application/json")) {
      // The server answered the streaming request with one JSON body: an error, or no streaming.
      const text = await response.text();
      const body = parseOrUndefined(text);
      const init = { provider: call.provider, status: response.status, excerpt: excerptOf(text, call), body };
      const fields = errorFields(body);
      if (fields.message !== undefined) throw errorForStatus({ ...init, status: response.status });
      throw new ProviderProtocolError(`${call.provider} answered a streaming request without a stream`, init);
    }
    if (!response.body)
      throw new ProviderProtocolError(`${call.provider} sent an empty stream`, { provider: call.provider });
    attempt.streaming();
    try {
      const complete = await readEvents(response.body, onEvent, {
        onChunk: () => attempt.alive(),
        onFirstEvent: () => attempt.delivered(),
      });
      return { complete, headers: response.headers };
    } catch (error) {
      if (error instanceof SseFormatError)
        throw new ProviderProtocolError(`${call.provider} stream is malformed: ${error.message}`, {
          provider: call.provider,
        });
      throw error;
    }
  });
}

type Reader<T> = (response: Response, attempt: Attempt) => Promise<T>;

async function send<T>(call: HttpCall, options: HttpOptions, accept: string, read: Reader<T>): Promise<T> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const doFetch = options.fetch ?? globalThis.fetch;
  const text = JSON.stringify(call.body);
  const headers = { accept, ...call.headers, "content-type": "application/json" };
  const secrets = call.secrets ?? [];
  const shownUrl = redact(call.url, secrets);
  for (let n = 1; ; n++) {
    if (call.signal.aborted) throw call.signal.reason;
    const attempt = new Attempt(call, options);
    let failure: Failure;
    try {
      call.observer.onRequest({ body: call.body, url: shownUrl, attempt: n });
      const response = await doFetch(call.url, {
        method: "POST",
        headers,
        body: text,
        signal: attempt.signal,
      });
      if (!response.ok) throw await failureOf(response, call, attempt);
      return await read(response, attempt);
    } catch (error) {
      if (call.signal.aborted) throw call.signal.reason;
      failure = error instanceof Failure ? error : attempt.classify(error);
    } finally {
      attempt.dispose();
    }
    const delayMs = failure.waitBefore(n, policy, attempt.hasDelivered);
    if (delayMs === undefined) throw scrub(failure.error, secrets);
    call.observer.onRetry?.({ attempt: n + 1, delayMs, error: redact(failure.error.message, secrets) });
    await sleep(delayMs, call.signal);
  }
}

/** An error plus what the retry decision needs to know about it. */
class Failure {
  constructor(
    readonly error: GlassloopError,
    readonly retryable: boolean,
    readonly serverWaitMs?: number,
  ) {}

  /** The wait before the next attempt, or `undefined` when this failure must not be retried. */
  waitBefore(attempt: number, policy: RetryPolicy, delivered: boolean): number | undefined {
    if (!this.retryable || delivered || attempt > policy.maxRetries) return undefined;
    if (this.serverWaitMs !== undefined)
      return this.serverWaitMs <= policy.maxRetryAfterMs ? this.serverWaitMs : undefined;
    return backoffMs(attempt, policy);
  }
}

async function failureOf(response: Response, call: HttpCall, attempt: Attempt): Promise<Failure> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // The status alone still tells what happened; a body that fails to arrive adds nothing.
  }
  attempt.requestDone();
  const excerpt = excerptOf(text, call);
  const wait = retryAfterMs(response.headers);
  const requestId = response.headers.get("x-request-id") ?? response.headers.get("request-id") ?? undefined;
  const error = errorForStatus(
    {
      provider: call.provider,
      status: response.status,
      excerpt,
      body: parseOrUndefined(redact(text, call.secrets ?? [])),
      ...(requestId !== undefined && { requestId }),
    },
    wait,
  );
  const hint = response.headers.get("x-should-retry");
  const retryable = hint === "true" ? true : hint === "false" ? false : isRetryableStatus(response.status);
  return new Failure(error, retryable, wait);
}

/**
 * One attempt's abort controller and timers: the request timeout until the answer is in (for
 * streams: until the headers), then the idle timeout, reset by every chunk.
 */
class Attempt {
  readonly #controller = new AbortController();
  readonly #call: HttpCall;
  readonly #timeoutMs: number;
  readonly #idleMs: number;
  #timer: NodeJS.Timeout | undefined;
  #timedOut: "request" | "stream_idle" | undefined;
  #stage: "request" | "stream" = "request";
  #delivered = false;
  readonly #onCallerAbort: () => void;

  constructor(call: HttpCall, options: HttpOptions) {
    this.#call = call;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#idleMs = options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.#onCallerAbort = () => this.#controller.abort(call.signal.reason);
    call.signal.addEventListener("abort", this.#onCallerAbort, { once: true });
    this.#timer = setTimeout(() => this.#expire("request"), this.#timeoutMs);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get hasDelivered(): boolean {
    return this.#delivered;
  }

  /** The answer is complete: no timer may fire any more. */
  requestDone(): void {
    clearTimeout(this.#timer);
  }

  /** Headers are in and the stream begins: from now on the idle timeout applies. */
  streaming(): void {
    clearTimeout(this.#timer);
    this.#stage = "stream";
    this.#timer = setTimeout(() => this.#expire("stream_idle"), this.#idleMs);
  }

  /** A chunk arrived. */
  alive(): void {
    this.#timer?.refresh();
  }

  /** The first event reached the provider's handler. */
  delivered(): void {
    this.#delivered = true;
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#call.signal.removeEventListener("abort", this.#onCallerAbort);
  }

  /** Turns whatever the attempt threw into a typed, redacted failure. */
  classify(error: unknown): Failure {
    const { provider } = this.#call;
    if (this.#timedOut === "request")
      return new Failure(new RequestTimeoutError(provider, this.#timeoutMs), true);
    if (this.#timedOut === "stream_idle")
      return new Failure(new StreamIdleTimeoutError(provider, this.#idleMs), true);
    if (error instanceof ProviderError || !(error instanceof Error) || !isNetworkFailure(error)) {
      if (error instanceof GlassloopError) return new Failure(error, false);
      // A provider's handler threw something untyped: still a typed, redacted error for the caller.
      const detail = redact(error instanceof Error ? error.message : String(error), this.#call.secrets ?? []);
      return new Failure(
        new ProviderProtocolError(`${provider}: ${detail}`, { provider }, { cause: error }),
        false,
      );
    }
    const where = this.#stage === "stream" ? "the stream broke off" : "the request failed";
    const detail = redact(describeNetworkError(error), this.#call.secrets ?? []);
    return new Failure(
      new NetworkError(`${provider}: ${where}: ${detail}`, { provider }, { cause: error }),
      true,
    );
  }

  #expire(kind: "request" | "stream_idle"): void {
    this.#timedOut = kind;
    this.#controller.abort(new Error(`${kind} timeout`));
  }
}

// What undici throws when a connection fails or breaks: TypeError("fetch failed" | "terminated"),
// or a socket error code somewhere in the cause chain.
function isNetworkFailure(error: Error): boolean {
  if (error.name === "TypeError" || error.name === "AbortError") return true;
  return codeOf(error) !== undefined;
}

function describeNetworkError(error: Error): string {
  const code = codeOf(error);
  return code ? `${error.message} (${code})` : error.message;
}

function codeOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z_]+$|^UND_ERR/.test(code)) return code;
  }
  return undefined;
}

/**
 * The safety net behind every error this layer throws: a provider's handler may have built one
 * from text that echoes a secret.
 */
function scrub(error: GlassloopError, secrets: readonly string[]): GlassloopError {
  error.message = redact(error.message, secrets);
  // The stack was rendered with the message as it was at construction.
  if (error.stack) error.stack = redact(error.stack, secrets);
  if (error instanceof ProviderError) {
    const clean = redact(error.excerpt, secrets);
    if (clean !== error.excerpt) Object.defineProperty(error, "excerpt", { value: clean });
  }
  return error;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const EXCERPT_CHARS = 500;

function excerptOf(text: string, call: HttpCall): string {
  const clean = redact(text, call.secrets ?? []);
  return clean.length > EXCERPT_CHARS ? `${clean.slice(0, EXCERPT_CHARS)}…` : clean;
}
