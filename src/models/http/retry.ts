/** When and how long to wait before trying a failed model call again. */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** Backoff before the first retry; it doubles on each further one. */
  initialDelayMs: number;
  /** Ceiling of the computed backoff. */
  maxDelayMs: number;
  /** Share of the backoff taken off at random (0..1), so clients that failed together spread out. */
  jitter: number;
  /**
   * The longest `Retry-After` honoured. A server that asks for a longer wait gets no retry: the
   * error (a RateLimitError carrying `retryAfterMs`) goes to the caller, who can decide.
   */
  maxRetryAfterMs: number;
}

/** Defaults: 2 retries, 0.5 s then 1 s (minus up to 25 % jitter), `Retry-After` honoured up to 60 s. */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  jitter: 0.25,
  maxRetryAfterMs: 60_000,
});

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

/** A sleep that ends early, rejecting with the signal's reason, when `signal` fires. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
