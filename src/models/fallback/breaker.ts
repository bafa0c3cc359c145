/** Settings of the per-model circuit breaker of a fallback chain. */
export interface BreakerOptions {
  /** Failures in a row (of the kinds a chain falls over on) that open the breaker; default 5. */
  failures?: number;
  /** How long an open breaker skips its model before one probe call may try it; default 30 s. */
  cooldownMs?: number;
  /**
   * Where the breakers' state lives. Default: one registry for the whole process, so every run and
   * every chain that uses a model shares what is known of it. Pass your own to keep them apart.
   */
  registry?: CircuitBreakers;
}

/** What a breaker says of a model right now. */
export type BreakerState = "closed" | "open" | "half_open";

interface Entry {
  failures: number;
  openedAt?: number;
  probing: boolean;
}

/**
 * Circuit breakers, one per model id. Closed: calls go through, failures are counted; `failures` in
 * a row open it. Open: calls skip the model until `cooldownMs` passed; then exactly one call may
 * probe it (half-open) while the others still skip it; the probe's success closes the breaker, its
 * failure opens it for another cooldown.
 */
export class CircuitBreakers {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;

  /** `now` is the clock (milliseconds), replaceable in tests. */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The breaker's state for `model`. */
  state(model: string, cooldownMs: number): BreakerState {
    const entry = this.#entries.get(model);
    if (entry?.openedAt === undefined) return "closed";
    return this.#now() - entry.openedAt >= cooldownMs ? "half_open" : "open";
  }

  /**
   * Whether a call may go to `model` now; a half-open breaker lets one caller through as its probe
   * (`probe: true`) and turns the others away until that probe ends.
   */
  admit(model: string, cooldownMs: number): { allowed: boolean; probe: boolean; openedAt?: number } {
    const entry = this.#entries.get(model);
    if (entry?.openedAt === undefined) return { allowed: true, probe: false };
    if (this.#now() - entry.openedAt < cooldownMs || entry.probing)
      return { allowed: false, probe: false, openedAt: entry.openedAt };
    entry.probing = true;
    return { allowed: true, probe: true, openedAt: entry.openedAt };
  }

  /** `model` answered: its breaker closes and its failure count starts over. */
  success(model: string): void {
    this.#entries.delete(model);
  }

  /** `model` failed in a way a chain falls over on; `threshold` failures in a row open its breaker. */
  failure(model: string, threshold: number): void {
    const entry = this.#entries.get(model) ?? { failures: 0, probing: false };
    entry.failures++;
    if (entry.probing || entry.failures >= threshold) entry.openedAt = this.#now();
    entry.probing = false;
    this.#entries.set(model, entry);
  }

  /** A probe ended without a verdict (the caller's fault or an abort): another call may probe. */
  release(model: string): void {
    const entry = this.#entries.get(model);
    if (entry) entry.probing = false;
  }

  /** Forgets every breaker (all closed). */
  reset(): void {
    this.#entries.clear();
  }
}

/** The breakers every chain shares unless given its own registry. */
export const sharedBreakers = new CircuitBreakers();
