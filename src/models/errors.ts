import { GlassloopError } from "../core/errors.js";
import type { ModelErrorCode } from "../core/vocabulary/error-codes.js";

/**
 * Errors of model providers. Every message passes through `redact` before it is built, so an API
 * key never reaches an error message, an event or a log, whatever the server echoed back.
 */

/** What a provider error was made from; `excerpt` and `body` are already redacted. */
export interface ProviderErrorInit {
  /** Provider label for messages, e.g. `openai`, `anthropic`. */
  provider: string;
  status?: number;
  /** The first characters of the response body. */
  excerpt?: string;
  /** The parsed JSON error body, when it was JSON. */
  body?: unknown;
  /** The provider's request id (`x-request-id`, `request-id`), for support tickets. */
  requestId?: string;
}

/** A provider answered with an error, or broke its protocol; `status` and `excerpt` say how. */
export class ProviderError extends GlassloopError {
  readonly provider: string;
  readonly status: number | undefined;
  readonly excerpt: string;
  readonly body: unknown;
  readonly requestId: string | undefined;
  constructor(code: ModelErrorCode, message: string, init: ProviderErrorInit, options?: { cause?: unknown }) {
    super(code, message, options);
    this.provider = init.provider;
    this.status = init.status;
    this.excerpt = init.excerpt ?? "";
    this.body = init.body;
    this.requestId = init.requestId;
  }
}

/** The API key is missing, wrong or lacks permission (HTTP 401 or 403). */
export class AuthenticationError extends ProviderError {
  constructor(message: string, init: ProviderErrorInit) {
    super("authentication", message, init);
  }
}

/** The provider is rate limiting (HTTP 429); `retryAfterMs` is what it asked us to wait, if it said. */
export class RateLimitError extends ProviderError {
  readonly retryAfterMs: number | undefined;
  /** The provider's rate headers on the 429 (`x-ratelimit-*`, `anthropic-ratelimit-*`), lower-cased. */
  rateHeaders: Record<string, string> = {};
  constructor(message: string, init: ProviderErrorInit, retryAfterMs?: number) {
    super("rate_limited", message, init);
    this.retryAfterMs = retryAfterMs;
  }
}

/** The request (prompt plus requested output) does not fit the model's context window. */
export class ContextOverflowError extends ProviderError {
  constructor(message: string, init: ProviderErrorInit) {
    super("context_overflow", message, init);
  }
}

/** The response does not follow the provider's protocol: bad JSON, a cut stream, a wrong shape. */
export class ProviderProtocolError extends ProviderError {
  constructor(message: string, init: ProviderErrorInit, options?: { cause?: unknown }) {
    super("provider_protocol", message, init, options);
  }
}

/** A stream ended cleanly but before its protocol's end marker: the answer may be cut short. */
export class StreamIncompleteError extends ProviderError {
  constructor(message: string, init: ProviderErrorInit) {
    super("stream_incomplete", message, init);
  }
}

/** The connection failed or broke before a complete response arrived. */
export class NetworkError extends ProviderError {
  constructor(message: string, init: ProviderErrorInit, options?: { cause?: unknown }) {
    super("network", message, init, options);
  }
}

/** A model call took longer than allowed; `kind` says which limit. */
export class ModelTimeoutError extends GlassloopError {
  readonly timeoutMs: number;
  readonly kind: "request" | "stream_idle" | "deadline";
  constructor(
    code: ModelErrorCode,
    kind: "request" | "stream_idle" | "deadline",
    message: string,
    timeoutMs: number,
  ) {
    super(code, message);
    this.kind = kind;
    this.timeoutMs = timeoutMs;
  }
}

/** No response (or, without streaming, no complete body) within `timeoutMs`. */
export class RequestTimeoutError extends ModelTimeoutError {
  constructor(provider: string, timeoutMs: number) {
    super("request_timeout", "request", `${provider}: no response within ${timeoutMs} ms`, timeoutMs);
  }
}

/** A stream went quiet for longer than `streamIdleTimeoutMs` between two chunks. */
export class StreamIdleTimeoutError extends ModelTimeoutError {
  constructor(provider: string, timeoutMs: number) {
    super(
      "stream_idle_timeout",
      "stream_idle",
      `${provider}: the stream sent nothing for ${timeoutMs} ms`,
      timeoutMs,
    );
  }
}

/**
 * A model call ran past `deadlineMs`, its total allowance: retries, waits and the whole body or
 * stream included. A stream that keeps sending (keep-alive comments, a delta a second) ends here.
 */
export class CallDeadlineError extends ModelTimeoutError {
  constructor(provider: string, timeoutMs: number) {
    super(
      "deadline_exceeded",
      "deadline",
      `${provider}: the model call took longer than its deadline of ${timeoutMs} ms`,
      timeoutMs,
    );
  }
}

/** Which part of a response went over its cap. */
export type OversizedPart = "stream" | "body" | "error_body";

/**
 * A response was larger than its cap (`maxStreamBytes`, `maxResponseBytes`, `maxErrorBodyBytes`):
 * reading stopped at the cap, and it is never retried (the next answer would be as large).
 */
export class ResponseTooLargeError extends ProviderError {
  readonly part: OversizedPart;
  readonly limitBytes: number;
  constructor(part: OversizedPart, limitBytes: number, init: ProviderErrorInit) {
    const what = part === "stream" ? "stream" : part === "body" ? "response body" : "error body";
    const status = init.status !== undefined && part === "error_body" ? ` (HTTP ${init.status})` : "";
    super(
      "response_too_large",
      `${init.provider}: the ${what}${status} was larger than ${limitBytes} bytes; reading stopped there`,
      init,
    );
    this.part = part;
    this.limitBytes = limitBytes;
  }
}

const OVERFLOW_CODES = new Set([
  "context_length_exceeded",
  "string_above_max_length",
  "exceed_context_size_error",
  "request_too_large",
]);

// Phrases providers use for an over-long prompt (OpenAI, Anthropic, Gemini, vLLM, llama.cpp, Mistral, Groq).
const OVERFLOW_TEXT =
  /prompt is too long|maximum context length|context[ _]length|context window|exceeds? (?:the )?(?:available )?context|too many tokens|reduce the length of the messages|exceeds the maximum number of tokens/i;

/** Gemini answers a bad key with HTTP 400 and the reason `API_KEY_INVALID` in the error's details. */
function isInvalidKey(body: unknown): boolean {
  const details = (body as { error?: { details?: unknown } } | null)?.error?.details;
  return (
    Array.isArray(details) &&
    details.some((d) => (d as { reason?: unknown } | null)?.reason === "API_KEY_INVALID")
  );
}

/** The `{ error: { type, code, message } }` fields OpenAI- and Anthropic-style bodies share. */
export interface ErrorFields {
  type?: string;
  code?: string;
  message?: string;
}

/** Reads the error fields of a provider's JSON error body, whatever its exact shape. */
export function errorFields(body: unknown): ErrorFields {
  if (typeof body !== "object" || body === null) return {};
  const outer = body as { error?: unknown; type?: unknown; message?: unknown; code?: unknown };
  const inner =
    typeof outer.error === "object" && outer.error !== null
      ? (outer.error as Record<string, unknown>)
      : outer;
  const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined);
  const fields: ErrorFields = {};
  const type = str(inner.type);
  const code = str(inner.code);
  const message = str(inner.message) ?? (typeof outer.error === "string" ? outer.error : undefined);
  if (type !== undefined) fields.type = type;
  if (code !== undefined) fields.code = code;
  if (message !== undefined) fields.message = message;
  return fields;
}

/** True when an error body says the prompt was too long for the model. */
export function isContextOverflow(fields: ErrorFields): boolean {
  if (fields.code && OVERFLOW_CODES.has(fields.code)) return true;
  if (fields.type && OVERFLOW_CODES.has(fields.type)) return true;
  return fields.message !== undefined && OVERFLOW_TEXT.test(fields.message);
}

/**
 * The typed error for an HTTP error response. `excerpt` must already be redacted; `body` is its
 * parse when it was JSON.
 */
export function errorForStatus(
  init: ProviderErrorInit & { status: number },
  retryAfterMs?: number,
): ProviderError {
  const fields = errorFields(init.body);
  const detail = fields.message ?? (init.excerpt || "(empty body)");
  // A 200 that carries an error is an error inside a body or a stream that began well.
  const message =
    init.status === 200
      ? `${init.provider} reported an error: ${detail}`
      : `${init.provider} returned HTTP ${init.status}: ${detail}`;
  if (init.status === 401 || init.status === 403 || isInvalidKey(init.body))
    return new AuthenticationError(message, init);
  if (init.status === 429) return new RateLimitError(message, init, retryAfterMs);
  // Servers disagree on the status (400, 413, 422, even 500 or an error inside a 200 stream); the
  // body is what says the prompt was too long.
  if (isContextOverflow(fields)) return new ContextOverflowError(message, init);
  return new ProviderError("provider_error", message, init);
}
