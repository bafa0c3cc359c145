import { GlassloopError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import {
  CallDeadlineError,
  NetworkError,
  ProviderError,
  ProviderProtocolError,
  RateLimitError,
  RequestTimeoutError,
  ResponseTooLargeError,
  StreamIdleTimeoutError,
} from "../errors.js";
import {
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type HttpCall,
  type HttpOptions,
} from "./call.js";
import type { Exchange } from "./reply.js";
import { backoffMs, isRetryableStatus, type RetryPolicy } from "./retry.js";

/** An error plus what the retry decision needs to know about it. */
export class Failure {
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

/**
 * One attempt's timers, and what ends its request when one fires: the request timeout until the answer is in (for
 * streams: until the headers), then the idle timeout, reset by every chunk; and, over both, the
 * call's deadline, which nothing resets. One timer serves all three (a timer per bound would cost
 * a second timer per model call, which shows at high concurrency): it is set for whichever bound
 * comes first, and when it fires, the deadline wins if it has passed.
 */
export class Attempt {
  /** The request in flight, once `send` started it: what a timer ends. */
  #exchange: Exchange | undefined;
  readonly #call: HttpCall;
  readonly #timeoutMs: number;
  readonly #idleMs: number;
  readonly #deadlineMs: number;
  /** When the call's deadline passes, on the `performance.now()` clock. */
  readonly #deadlineAt: number;
  #timer: NodeJS.Timeout | undefined;
  /** Whether `#timer` is set for the deadline (then a chunk must not push it later). */
  #timerIsDeadline = false;
  #timedOut: "request" | "stream_idle" | "deadline" | undefined;
  #stage: "request" | "stream" = "request";
  #delivered = false;

  /** `remainingMs` is what is left of the call's deadline of `deadlineMs` when this attempt starts. */
  constructor(call: HttpCall, options: HttpOptions, deadline: { deadlineMs: number; remainingMs: number }) {
    this.#call = call;
    this.#deadlineMs = deadline.deadlineMs;
    this.#deadlineAt = performance.now() + Math.max(0, deadline.remainingMs);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#idleMs = options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.#arm("request", this.#timeoutMs);
  }

  /** The request this attempt's timers end. */
  started(exchange: Exchange): void {
    this.#exchange = exchange;
  }

  get hasDelivered(): boolean {
    return this.#delivered;
  }

  /** The answer is complete: no timer may fire any more. */
  requestDone(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Headers are in and the stream begins: from now on the idle timeout applies. */
  streaming(): void {
    clearTimeout(this.#timer);
    this.#stage = "stream";
    this.#arm("stream_idle", this.#idleMs);
  }

  /** A chunk arrived. */
  alive(): void {
    if (this.#timer === undefined || this.#timerIsDeadline) return;
    // The idle timer may move only while it still ends before the deadline.
    if (performance.now() + this.#idleMs < this.#deadlineAt) this.#timer.refresh();
    else this.#arm("stream_idle", this.#idleMs);
  }

  /** A delta reached the caller: from now on a failure must not be retried (it would replay it). */
  delivered(): void {
    this.#delivered = true;
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Turns whatever the attempt threw into a typed, redacted failure. */
  classify(error: unknown): Failure {
    const { provider } = this.#call;
    // The deadline covers the whole call: once it passed, no retry may start.
    if (this.#timedOut === "deadline")
      return new Failure(new CallDeadlineError(provider, this.#deadlineMs), false);
    // A body over its cap would be as large the next time.
    if (error instanceof ResponseTooLargeError) return new Failure(error, false);
    if (this.#timedOut === "request")
      return new Failure(new RequestTimeoutError(provider, this.#timeoutMs), true);
    if (this.#timedOut === "stream_idle")
      return new Failure(new StreamIdleTimeoutError(provider, this.#idleMs), true);
    if (isRedirect(error))
      return new Failure(
        new ProviderProtocolError(
          `${provider}: ${hostOf(this.#call.url)} answered with a redirect, which is not followed (the API key would go along); set baseURL to the address it redirects to`,
          { provider },
          { cause: error },
        ),
        false,
      );
    if (error instanceof ProviderError || !(error instanceof Error) || !isNetworkFailure(error)) {
      // An error a stream reported in an event (Anthropic's `overloaded_error`, 529) carries the
      // status it would have had over HTTP, and is retried as that status would be.
      if (isStatusError(error)) return new Failure(error, isRetryableStatus(error.status), waitOf(error));
      if (error instanceof GlassloopError) return new Failure(error, false);
      // A provider's handler threw something untyped: still a typed, redacted error for the caller.
      const detail = redact(error instanceof Error ? error.message : String(error), this.#call.secrets ?? []);
      return new Failure(
        new ProviderProtocolError(`${provider}: ${detail}`, { provider }, { cause: error }),
        false,
      );
    }
    // The host (never the path or query, which may carry a key) and the socket's own words
    // (`connect ECONNREFUSED 127.0.0.1:8080`): "fetch failed" alone says neither where nor why.
    const host = hostOf(this.#call.url);
    const where =
      this.#stage === "stream" ? `the stream broke off from ${host}` : `the request to ${host} failed`;
    const detail = redact(describeNetworkError(error), this.#call.secrets ?? []);
    // A certificate the process does not trust, or a TLS mismatch, is the same on the next attempt.
    const code = codeOf(error);
    return new Failure(
      new NetworkError(`${provider}: ${where}: ${detail}`, { provider }, { cause: error }),
      code === undefined || !TLS_CODE.test(code),
    );
  }

  /** Sets the one timer for `kind` after `ms`, or for the deadline when that comes first (ties too). */
  #arm(kind: "request" | "stream_idle", ms: number): void {
    clearTimeout(this.#timer);
    const untilDeadline = this.#deadlineAt - performance.now();
    this.#timerIsDeadline = untilDeadline <= ms;
    const fires = this.#timerIsDeadline ? "deadline" : kind;
    this.#timer = setTimeout(
      () => this.#expire(fires),
      Math.max(0, this.#timerIsDeadline ? untilDeadline : ms),
    );
  }

  #expire(kind: "request" | "stream_idle" | "deadline"): void {
    this.#timer = undefined;
    this.#timedOut = kind;
    this.#exchange?.abort(new Error(`${kind} timeout`));
  }
}

function isStatusError(error: unknown): error is ProviderError & { status: number } {
  return (
    error instanceof ProviderError &&
    !(error instanceof ProviderProtocolError) &&
    typeof error.status === "number"
  );
}

function waitOf(error: ProviderError): number | undefined {
  return error instanceof RateLimitError ? error.retryAfterMs : undefined;
}

// What fetch throws for a 3xx under `redirect: "error"`: TypeError("fetch failed") caused by
// Error("unexpected redirect").
function isRedirect(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    (error.cause as { message?: unknown } | undefined)?.message === "unexpected redirect"
  );
}

// What undici throws when a connection fails or breaks: TypeError("fetch failed" | "terminated"),
// or a socket error code somewhere in the cause chain.
function isNetworkFailure(error: Error): boolean {
  if (error.name === "TypeError" || error.name === "AbortError") return true;
  return codeOf(error) !== undefined;
}

function describeNetworkError(error: Error): string {
  const causes: string[] = [];
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    // An AggregateError (both address families refused) has an empty message; its parts say it.
    const parts = e instanceof AggregateError ? e.errors.filter((x) => x instanceof Error) : [e];
    for (const part of parts) {
      if (part.message && !causes.includes(part.message)) causes.push(part.message);
    }
  }
  const code = codeOf(error);
  const text = causes.join(": ") || error.name;
  return code && !text.includes(code) ? `${text} (${code})` : text;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the server";
  }
}

// Socket codes (ECONNRESET), undici's (UND_ERR_…), and TLS failures: Node's ERR_TLS_/ERR_SSL_ and
// OpenSSL's certificate verdicts (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, …). fetch wrapped
// all of these in a TypeError; node:http throws them bare, so the code alone must say "network".
const TLS_CODE =
  /^ERR_(TLS|SSL)_|^(UNABLE_TO_|CERT_|CRL_|DEPTH_ZERO_|SELF_SIGNED_)|^(HOSTNAME_MISMATCH|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH_EXCEEDED)$/;

function codeOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (/^E[A-Z_]+$|^UND_ERR/.test(code) || TLS_CODE.test(code))) return code;
  }
  return undefined;
}
