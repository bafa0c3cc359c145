// What a failed HTTP answer becomes: a typed error with a scrubbed excerpt of its body, whether to
// retry it, and the scrubbing every error of the transport passes before it leaves.
import type { GlassloopError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";
import { errorForStatus, ProviderError, RateLimitError, ResponseTooLargeError } from "../errors.js";
import { type Attempt, Failure } from "./attempt.js";
import type { Bounds, HttpCall } from "./call.js";
import { readCapped, type WireReply } from "./reply.js";
import { isRetryableStatus, retryAfterMs } from "./retry.js";

/** What a non-2xx answer becomes: a typed error (its body read under its cap, scrubbed) and whether to retry. */
export async function failureOf(
  response: WireReply,
  call: HttpCall,
  attempt: Attempt,
  bounds: Bounds,
): Promise<Failure> {
  let text = "";
  try {
    text = await readCapped(response, bounds.maxErrorBodyBytes, "error_body", call.provider);
  } catch (error) {
    // An error body over its cap is refused, and never retried: each retry would cost as much.
    if (error instanceof ResponseTooLargeError) return new Failure(error, false);
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
  if (error instanceof RateLimitError) error.rateHeaders = rateHeadersOf(response.headers);
  const hint = response.headers.get("x-should-retry");
  const retryable = hint === "true" ? true : hint === "false" ? false : isRetryableStatus(response.status);
  return new Failure(error, retryable, wait);
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

/** The rate-limit headers of a 429, for a client-side limiter to learn from. */
function rateHeadersOf(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (/^(x-ratelimit-|anthropic-ratelimit-|retry-after)/.test(name)) kept[name] = value;
  });
  return kept;
}

/** The JSON of `text`, or undefined when it is not JSON. */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const EXCERPT_CHARS = 500;

/** The start of a body for an error message, its secrets scrubbed. */
export function excerptOf(text: string, call: HttpCall): string {
  const clean = redact(text, call.secrets ?? []);
  return clean.length > EXCERPT_CHARS ? `${clean.slice(0, EXCERPT_CHARS)}…` : clean;
}
