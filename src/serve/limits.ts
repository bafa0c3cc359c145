import { readBodyCapped } from "../core/read-caps.js";
import { ServeConfigError, ServeRequestError } from "./errors.js";

/** The server's limits; every one has a default. */
export interface ServeLimits {
  /** Largest request body (default 1 MiB). */
  maxBodyBytes?: number;
  /** Longest user message, in characters (default 32,000). */
  maxMessageChars?: number;
  /** Requests per principal per minute (default 120). */
  requestsPerMinute?: number;
  /**
   * Requests per client address per minute, counted before the token is checked, so guessing
   * tokens or flooding with bad ones is slowed too (default 600). Needs the address: Node's socket
   * through `startServer`, or `clientAddress` elsewhere; without one it does not apply.
   */
  requestsPerMinutePerAddress?: number;
  /** Runs one principal may have running at once (default 4). */
  maxActiveRuns?: number;
  /** A stream with no event this long is closed; its run goes on (default 10 minutes). */
  streamIdleMs?: number;
  /** A comment line on an idle stream this often, for proxies (default 15 s). */
  keepAliveMs?: number;
}

/** The limits with their defaults filled in. */
export type ResolvedLimits = Required<ServeLimits>;

const DEFAULTS: ResolvedLimits = {
  maxBodyBytes: 1024 * 1024,
  maxMessageChars: 32_000,
  requestsPerMinute: 120,
  requestsPerMinutePerAddress: 600,
  maxActiveRuns: 4,
  streamIdleMs: 10 * 60_000,
  keepAliveMs: 15_000,
};

/** Fills in defaults and checks each limit is a positive whole number. */
export function resolveLimits(limits: ServeLimits = {}): ResolvedLimits {
  const out = { ...DEFAULTS };
  for (const [key, value] of Object.entries(limits)) {
    if (!(key in DEFAULTS)) throw new ServeConfigError(`unknown limit ${JSON.stringify(key)}`);
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0)
      throw new ServeConfigError(
        `limits.${key} must be a positive whole number, not ${JSON.stringify(value)}`,
      );
    out[key as keyof ResolvedLimits] = value;
  }
  return out;
}

/** Most callers tracked at once. */
const MAX_BUCKETS = 100_000;

/**
 * Requests per principal (or per address) in a sliding minute (a token bucket refilled
 * continuously), so one caller cannot starve the others. Buckets of idle callers are dropped as
 * they fill up, and the oldest beyond MAX_BUCKETS, so many addresses cannot grow it without bound.
 */
export class RateLimiter {
  readonly #perMinute: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(perMinute: number) {
    this.#perMinute = perMinute;
  }

  /** Takes one request from `principal`'s bucket, or throws 429 with a Retry-After. */
  take(principal: string, now = Date.now()): void {
    const rate = this.#perMinute / 60_000;
    const bucket = this.#buckets.get(principal) ?? { tokens: this.#perMinute, at: now };
    bucket.tokens = Math.min(this.#perMinute, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    if (bucket.tokens < 1) {
      this.#buckets.set(principal, bucket);
      const wait = Math.ceil((1 - bucket.tokens) / rate / 1000);
      throw new ServeRequestError(429, "rate_limited", `more than ${this.#perMinute} requests a minute`, {
        headers: { "retry-after": String(wait) },
      });
    }
    bucket.tokens -= 1;
    if (bucket.tokens >= this.#perMinute - 1 && this.#buckets.size > 10_000) this.#buckets.delete(principal);
    else this.#buckets.set(principal, bucket);
    if (this.#buckets.size > MAX_BUCKETS) this.#buckets.delete(this.#buckets.keys().next().value as string);
  }
}

/**
 * Reads a JSON body of at most `max` bytes: the Content-Length is checked first, then the bytes
 * as they arrive, so an oversized body is refused without being held.
 */
export async function readJsonBody(request: Request, max: number): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type))
    throw new ServeRequestError(415, "unsupported_media_type", "the body must be application/json");
  const length = request.headers.get("content-length");
  if (Number(length) > max) throw tooLarge(max);
  if (!request.body) throw new ServeRequestError(422, "invalid_request", "the request has no body");
  // The one capped body reader (core/read-caps.ts): bytes past the cap are never held.
  const bytes = await readBodyCapped(request.body, max, () => tooLarge(max), length);
  const text = bytes.toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    throw new ServeRequestError(422, "invalid_request", "the body is not valid JSON");
  }
}

function tooLarge(max: number): ServeRequestError {
  return new ServeRequestError(413, "payload_too_large", `the body is larger than ${max} bytes`);
}
