import { sleep } from "../../core/sleep.js";
import { RateLimitError } from "../errors.js";

/** Limits of one provider and key, shared by every run in the process that uses them. */
export interface RateLimits {
  /** Requests per window (per minute unless `windowMs` says otherwise). */
  rpm?: number;
  /** Tokens (input and output) per window. */
  tpm?: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** The window `rpm` and `tpm` count in; default 60,000 ms. Shorter windows are for tests. */
  windowMs?: number;
  /**
   * The longest a call may wait for room (default: one window). A call that would wait longer
   * fails at once with a `RateLimitError` (`provider: "client"`), which a fallback chain moves on from.
   */
  maxWaitMs?: number;
}

/** What a call holds while it runs: give back with the tokens it really used. */
export interface Permit {
  /** A request goes on the wire: each one after the first (a retry) takes another place, as the provider counts it too. */
  sent(): void;
  /** Ends the call: frees its concurrency slot and replaces its token estimate with `usedTokens`. */
  release(usedTokens?: number): void;
}

/** Which limit held a call back, and for how long it will wait (0: until a call in flight ends). */
export interface RateLimitWait {
  limit: "rpm" | "tpm" | "concurrency";
  waitMs: number;
}

/**
 * What a rate-limited model needs of a limiter: this process's `RateLimiter`, or one shared by
 * several processes (`PostgresRateLimiter` of `glassloop/postgres`).
 */
export interface Limiter {
  /** Whose limit this is, e.g. `openai`. */
  readonly key: string;
  /** The limits in force: the configured ones, tightened by what providers said. */
  readonly limits: Readonly<RateLimits>;
  /** Waits until a request of `tokens` fits, then takes its place; `onWait` hears of each wait first. */
  acquire(tokens: number, signal: AbortSignal, onWait?: (info: RateLimitWait) => void): Promise<Permit>;
  /** Learns from a provider's 429: its `Retry-After` and rate headers. */
  learn(info: { retryAfterMs?: number; headers?: Readonly<Record<string, string>> }): void;
}

interface Entry {
  at: number;
  tokens: number;
}

/** A tightening learned from a provider: no request before `until`, or a lower ceiling. */
interface Learned {
  pausedUntil: number;
  rpm?: number;
  tpm?: number;
}

/**
 * A sliding-window limiter: requests and tokens sent in the last window, and calls in flight.
 * Calls wait in arrival order (a waiting call is never overtaken by a later one), so a burst of
 * runs shares the limit fairly, and a wait is reported before it starts.
 *
 * A request counts in the window from the moment its answer arrived, and for as long as it is in
 * flight: the provider saw it at some time before that, so however late a busy process put the
 * bytes on the wire, the provider's own window never holds more than the limit.
 */
export class RateLimiter implements Limiter {
  readonly key: string;
  readonly #limits: RateLimits;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #sent: Entry[] = [];
  #inFlight = 0;
  #queue: Promise<void> = Promise.resolve();
  readonly #slotWaiters: (() => void)[] = [];
  readonly #learned: Learned = { pausedUntil: 0 };

  constructor(key: string, limits: RateLimits, now: () => number = Date.now) {
    for (const name of ["rpm", "tpm", "concurrency", "windowMs", "maxWaitMs"] as const) {
      const value = limits[name];
      if (value !== undefined && !(Number.isFinite(value) && value > 0))
        throw new RangeError(`rate limit ${name} for "${key}" must be a positive number`);
    }
    this.key = key;
    this.#limits = limits;
    this.#windowMs = limits.windowMs ?? 60_000;
    this.#now = now;
  }

  /** The limits in force: the configured ones, tightened by what providers said. */
  get limits(): Readonly<RateLimits> {
    const rpm = min(this.#limits.rpm, this.#learned.rpm);
    const tpm = min(this.#limits.tpm, this.#learned.tpm);
    return {
      ...this.#limits,
      ...(rpm !== undefined && { rpm }),
      ...(tpm !== undefined && { tpm }),
      windowMs: this.#windowMs,
    };
  }

  /**
   * Waits (in arrival order) until a request of `tokens` fits every limit, then takes its place.
   * `onWait` hears of each wait before it starts; `signal` ends the wait early.
   */
  acquire(
    tokens: number,
    signal: AbortSignal,
    onWait?: (info: { limit: "rpm" | "tpm" | "concurrency"; waitMs: number }) => void,
  ): Promise<Permit> {
    const turn = this.#queue.then(() => this.#take(tokens, signal, onWait));
    // The next caller waits for this one's turn, whatever its outcome.
    this.#queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /**
   * Learns from a provider's 429: a `Retry-After` pauses every call of this key until it passes,
   * and `x-ratelimit-*` / `anthropic-ratelimit-*` headers lower the ceilings and pause until reset.
   */
  learn(info: { retryAfterMs?: number; headers?: Readonly<Record<string, string>> }): void {
    const now = this.#now();
    if (info.retryAfterMs !== undefined)
      this.#learned.pausedUntil = Math.max(this.#learned.pausedUntil, now + info.retryAfterMs);
    const h = info.headers ?? {};
    const requests = number(h["x-ratelimit-limit-requests"] ?? h["anthropic-ratelimit-requests-limit"]);
    const tokens = number(h["x-ratelimit-limit-tokens"] ?? h["anthropic-ratelimit-tokens-limit"]);
    // The provider's own ceilings count per minute; scaled to this limiter's window.
    const scale = this.#windowMs / 60_000;
    if (requests !== undefined && requests > 0) this.#learned.rpm = Math.max(1, Math.floor(requests * scale));
    if (tokens !== undefined && tokens > 0) this.#learned.tpm = Math.max(1, Math.floor(tokens * scale));
    for (const kind of ["requests", "tokens"] as const) {
      const remaining = number(
        h[`x-ratelimit-remaining-${kind}`] ?? h[`anthropic-ratelimit-${kind}-remaining`],
      );
      if (remaining !== 0) continue;
      const reset = resetMs(h[`x-ratelimit-reset-${kind}`] ?? h[`anthropic-ratelimit-${kind}-reset`], now);
      if (reset !== undefined) this.#learned.pausedUntil = Math.max(this.#learned.pausedUntil, now + reset);
    }
  }

  async #take(
    tokens: number,
    signal: AbortSignal,
    onWait?: (info: { limit: "rpm" | "tpm" | "concurrency"; waitMs: number }) => void,
  ): Promise<Permit> {
    const maxWaitMs = this.#limits.maxWaitMs ?? this.#windowMs;
    const started = this.#now();
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const blocked = this.#blocked(tokens);
      if (blocked === undefined) break;
      if (blocked.limit === "concurrency" || !Number.isFinite(blocked.waitMs)) {
        // A call in flight holds the place: the next answer frees it.
        onWait?.({ limit: blocked.limit, waitMs: 0 });
        await this.#slot(signal);
        continue;
      }
      const waited = this.#now() - started;
      if (waited + blocked.waitMs > maxWaitMs)
        throw new RateLimitError(
          `client rate limit of "${this.key}": ${blocked.limit} full for another ${Math.ceil(blocked.waitMs)} ms, over the ${maxWaitMs} ms this call may wait`,
          { provider: "client" },
          blocked.waitMs,
        );
      onWait?.(blocked);
      await sleep(blocked.waitMs, signal);
    }
    // In flight: it cannot leave the window before its answer is in.
    const places: Entry[] = [{ at: Number.POSITIVE_INFINITY, tokens }];
    this.#sent.push(...places);
    this.#inFlight++;
    let released = false;
    let sends = 0;
    return {
      sent: () => {
        if (released || sends++ === 0) return;
        const place = { at: Number.POSITIVE_INFINITY, tokens: 0 };
        places.push(place);
        this.#sent.push(place);
      },
      release: (usedTokens) => {
        if (released) return;
        released = true;
        const first = places[0] as Entry;
        if (usedTokens !== undefined && Number.isFinite(usedTokens) && usedTokens >= 0)
          first.tokens = usedTokens;
        const now = this.#now();
        for (const place of places) place.at = now;
        this.#sent.sort((a, b) => a.at - b.at);
        this.#inFlight--;
        // Every waiter looks again: the place freed may be the one it needs.
        for (const wake of this.#slotWaiters.splice(0)) wake();
      },
    };
  }

  /** Which limit holds a request of `tokens` back now, and for how long; `undefined` when it may go. */
  #blocked(tokens: number): RateLimitWait | undefined {
    const now = this.#now();
    while (this.#sent.length > 0 && (this.#sent[0] as Entry).at <= now - this.#windowMs) this.#sent.shift();
    if (this.#learned.pausedUntil > now) return { limit: "rpm", waitMs: this.#learned.pausedUntil - now };
    return windowBlock(this.#sent, this.#inFlight, this.limits, tokens, now);
  }

  #slot(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        const i = this.#slotWaiters.indexOf(wake);
        if (i >= 0) this.#slotWaiters.splice(i, 1);
        reject(signal.reason);
      };
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#slotWaiters.push(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

/**
 * Which limit holds a request of `tokens` back, and for how long, given the places in the window
 * (`at`: when each leaves it less the window, `Infinity` while in flight; sorted, expired ones
 * removed) and the calls in flight; `undefined` when it may go. One rule for every limiter.
 */
export function windowBlock(
  places: readonly { at: number; tokens: number }[],
  inFlight: number,
  limits: Readonly<RateLimits>,
  tokens: number,
  now: number,
): RateLimitWait | undefined {
  const windowMs = limits.windowMs ?? 60_000;
  const { rpm, tpm, concurrency } = limits;
  if (concurrency !== undefined && inFlight >= concurrency) return { limit: "concurrency", waitMs: 0 };
  if (rpm !== undefined && places.length >= rpm) {
    const oldest = places[places.length - rpm] as { at: number };
    return { limit: "rpm", waitMs: oldest.at + windowMs - now };
  }
  if (tpm !== undefined) {
    // A request larger than the whole window's allowance goes alone, once the window is empty.
    const need = Math.min(tokens, tpm);
    let used = places.reduce((sum, e) => sum + e.tokens, 0);
    if (used + need > tpm) {
      for (const e of places) {
        used -= e.tokens;
        if (used + need <= tpm) return { limit: "tpm", waitMs: e.at + windowMs - now };
      }
    }
  }
  return undefined;
}

function min(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}

function number(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** OpenAI's resets are durations (`1s`, `6m0s`, `20ms`); Anthropic's are RFC 3339 times. */
function resetMs(text: string | undefined, now: number): number | undefined {
  if (text === undefined) return undefined;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length > 0 && parts.map((p) => p[0]).join("") === text.trim()) {
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
    return parts.reduce((sum, p) => sum + Number(p[1]) * unit[p[2] as keyof typeof unit], 0);
  }
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
