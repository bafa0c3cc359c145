import type { FallbackReason } from "../../core/vocabulary/events.js";
import {
  AuthenticationError,
  ContextOverflowError,
  ModelTimeoutError,
  NetworkError,
  ProviderError,
  RateLimitError,
  StreamIncompleteError,
} from "../errors.js";

/**
 * Why a chain may leave a model after `error`, or `undefined` when the error is the caller's (a
 * 400, a bad key, a prompt too long): the next model would be sent the same faulty request, and a
 * chain that hid a bad request or a revoked key behind a backup would hide the bug.
 *
 * - 429 → `rate_limited`; 529, or an `overloaded_error` (Anthropic), or 503 → `overloaded`;
 *   other 5xx → `server_error`; 408 → `timeout`;
 * - request, stream-idle and deadline timeouts → `timeout`;
 * - a refused, reset or broken connection, or a stream cut before its end → `network`.
 */
export function defaultReason(
  error: unknown,
): Exclude<FallbackReason, "circuit_open" | "user_rule"> | undefined {
  if (error instanceof RateLimitError) return "rate_limited";
  if (error instanceof ModelTimeoutError) return "timeout";
  if (error instanceof NetworkError || error instanceof StreamIncompleteError) return "network";
  if (error instanceof AuthenticationError || error instanceof ContextOverflowError) return undefined;
  if (error instanceof ProviderError && error.status !== undefined) {
    if (error.status === 408) return "timeout";
    if (error.status === 529 || error.status === 503 || isOverloaded(error)) return "overloaded";
    if (error.status >= 500 && error.status <= 599) return "server_error";
    // An error inside a 200 stream (Anthropic's `overloaded_error` event) carries no 5xx of its own.
    if (error.status === 200 && isOverloaded(error)) return "overloaded";
  }
  return undefined;
}

function isOverloaded(error: ProviderError): boolean {
  const body = error.body as { error?: { type?: unknown }; type?: unknown } | undefined;
  return body?.error?.type === "overloaded_error" || body?.type === "overloaded_error";
}

/** The HTTP status an error carries, when it has one. */
export function statusOf(error: unknown): number | undefined {
  return error instanceof ProviderError ? error.status : undefined;
}
