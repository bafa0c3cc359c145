// What a failed attempt becomes: a typed, redacted error and whether (and after how long) to try
// again, whether the server answered with an error status or the attempt threw.
import { GlassloopError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import {
  CallDeadlineError,
  errorForStatus,
  NetworkError,
  ProviderError,
  ProviderProtocolError,
  RateLimitError,
  RequestTimeoutError,
  ResponseTooLargeError,
  StreamIdleTimeoutError,
} from "../errors.js";
import type { HttpCall, RetryPolicy, Route, Settings, WireReply } from "./call.js";
import { readCapped } from "./reply.js";

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

/** What the transport knew of an attempt when it failed. */
export interface Attempt {
  readonly call: HttpCall;
  readonly route: Route;
  readonly settings: Settings;
  /** Which of the attempt's timers fired, if one did. */
  readonly timedOut: "request" | "stream_idle" | "deadline" | undefined;
  /** "stream" once a streamed answer's headers were in. */
  readonly stage: "request" | "stream";
}

/** What a non-2xx answer becomes: a typed error (its body read under its cap, scrubbed) and whether to retry. */
export async function failureOf(reply: WireReply, attempt: Attempt): Promise<Failure> {
  const { provider } = attempt.call;
  const { secrets } = attempt.route;
  let text = "";
  try {
    text = await readCapped(reply, attempt.settings.maxErrorBodyBytes, "error_body", provider);
  } catch (error) {
    // An error body over its cap is refused, and never retried: each retry would cost as much.
    if (error instanceof ResponseTooLargeError) return new Failure(error, false);
    // The status alone still tells what happened; a body that fails to arrive adds nothing.
  }
  const { headers, status } = reply;
  const wait = retryAfterMs(headers);
  const requestId = headers.get("x-request-id") ?? headers.get("request-id") ?? undefined;
  const body = parseOrUndefined(redact(text, secrets));
  const excerpt = excerptOf(text, secrets);
  const init = { provider, status, excerpt, body, ...(requestId !== undefined && { requestId }) };
  const error = errorForStatus(init, wait);
  if (error instanceof RateLimitError) {
    // The rate-limit headers of a 429, for a client-side limiter to learn from.
    const kept: Record<string, string> = {};
    headers.forEach((value, name) => {
      if (/^(x-ratelimit-|anthropic-ratelimit-|retry-after)/.test(name)) kept[name] = value;
    });
    error.rateHeaders = kept;
  }
  const hint = headers.get("x-should-retry");
  return new Failure(error, hint === "true" || (hint !== "false" && isRetryableStatus(status)), wait);
}

/** Turns whatever an attempt threw into a typed, redacted failure. */
export function classify(error: unknown, attempt: Attempt): Failure {
  const { call, settings, timedOut } = attempt;
  const { provider } = call;
  // The deadline covers the whole call: once it passed, no retry may start.
  if (timedOut === "deadline")
    return new Failure(new CallDeadlineError(provider, settings.deadlineMs), false);
  // A body over its cap would be as large the next time.
  if (error instanceof ResponseTooLargeError) return new Failure(error, false);
  if (timedOut === "request") return new Failure(new RequestTimeoutError(provider, settings.timeoutMs), true);
  if (timedOut === "stream_idle")
    return new Failure(new StreamIdleTimeoutError(provider, settings.streamIdleTimeoutMs), true);
  // What fetch throws for a 3xx under `redirect: "error"` (and the node:http path too):
  // TypeError("fetch failed") caused by Error("unexpected redirect").
  if (error instanceof TypeError && (error.cause as { message?: unknown })?.message === "unexpected redirect")
    return new Failure(
      new ProviderProtocolError(
        `${provider}: ${hostOf(call.url)} answered with a redirect, which is not followed (the API key would go along); set baseURL to the address it redirects to`,
        { provider },
        { cause: error },
      ),
      false,
    );
  const code = codeOf(error);
  // What undici throws when a connection fails or breaks is a TypeError ("fetch failed",
  // "terminated"); node:http throws socket errors bare, so a code alone must say "network" too.
  const network =
    error instanceof Error &&
    !(error instanceof ProviderError) &&
    (error.name === "TypeError" || error.name === "AbortError" || code !== undefined);
  if (!network) {
    // An error a stream reported in an event (Anthropic's `overloaded_error`, 529) carries the
    // status it would have had over HTTP, and is retried as that status would be.
    if (
      error instanceof ProviderError &&
      !(error instanceof ProviderProtocolError) &&
      typeof error.status === "number"
    )
      return new Failure(
        error,
        isRetryableStatus(error.status),
        error instanceof RateLimitError ? error.retryAfterMs : undefined,
      );
    if (error instanceof GlassloopError) return new Failure(error, false);
    // A provider's handler threw something untyped: still a typed, redacted error for the caller.
    const detail = redact(error instanceof Error ? error.message : String(error), attempt.route.secrets);
    return new Failure(
      new ProviderProtocolError(`${provider}: ${detail}`, { provider }, { cause: error }),
      false,
    );
  }
  // The host (never the path or query, which may carry a key) and the socket's own words
  // (`connect ECONNREFUSED 127.0.0.1:8080`): "fetch failed" alone says neither where nor why.
  const host = hostOf(call.url);
  const where =
    attempt.stage === "stream" ? `the stream broke off from ${host}` : `the request to ${host} failed`;
  const detail = redact(describeNetworkError(error, code), attempt.route.secrets);
  // A certificate the process does not trust, or a TLS mismatch, is the same on the next attempt.
  return new Failure(
    new NetworkError(`${provider}: ${where}: ${detail}`, { provider }, { cause: error }),
    code === undefined || !TLS_CODE.test(code),
  );
}

/**
 * The safety net behind every error this layer throws: a provider's handler may have built one
 * from text that echoes a secret.
 */
export function scrub(error: GlassloopError, secrets: readonly string[]): GlassloopError {
  error.message = redact(error.message, secrets);
  // The stack was rendered with the message as it was at construction.
  if (error.stack) error.stack = redact(error.stack, secrets);
  if (error instanceof ProviderError) {
    const clean = redact(error.excerpt, secrets);
    if (clean !== error.excerpt) Object.defineProperty(error, "excerpt", { value: clean });
  }
  return error;
}

/** The JSON of `text`, or undefined when it is not JSON. */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The start of a body for an error message, its secrets scrubbed. */
export function excerptOf(text: string, secrets: readonly string[]): string {
  const clean = redact(text, secrets);
  return clean.length > 500 ? `${clean.slice(0, 500)}…` : clean;
}

/** HTTP statuses worth another try: timeouts, conflicts, rate limits, server errors, Anthropic's 529. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * The wait a server asked for, in ms: `retry-after-ms`, else `Retry-After` as seconds or an HTTP
 * date; `undefined` when it asked nothing usable.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const n = Number(ms);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter for retry number `retry` (1 for the first retry). */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (retry - 1));
  return Math.round(base * (1 - policy.jitter * random()));
}

function describeNetworkError(error: Error, code: string | undefined): string {
  const causes: string[] = [];
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    // An AggregateError (both address families refused) has an empty message; its parts say it.
    const parts = e instanceof AggregateError ? e.errors.filter((x) => x instanceof Error) : [e];
    for (const part of parts) if (part.message && !causes.includes(part.message)) causes.push(part.message);
  }
  const text = causes.join(": ") || error.name;
  return code && !text.includes(code) ? `${text} (${code})` : text;
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : "the server";
}

// Socket codes (ECONNRESET), undici's (UND_ERR_…), and TLS failures: Node's ERR_TLS_/ERR_SSL_ and
// OpenSSL's certificate verdicts (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, …).
const TLS_CODE =
  /^ERR_(TLS|SSL)_|^(UNABLE_TO_|CERT_|CRL_|DEPTH_ZERO_|SELF_SIGNED_)|^(HOSTNAME_MISMATCH|INVALID_CA|INVALID_PURPOSE|PATH_LENGTH_EXCEEDED)$/;

function codeOf(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (/^E[A-Z_]+$|^UND_ERR/.test(code) || TLS_CODE.test(code))) return code;
  }
  return undefined;
}
