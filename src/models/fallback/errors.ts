import { GlassloopError } from "../../core/errors.js";
import type { FallbackReason } from "../../core/vocabulary/events.js";

/** One model of a chain that did not answer, and why. */
export interface FallbackAttempt {
  model: string;
  reason: FallbackReason;
  /** The failure's message, redacted. */
  error: string;
  status?: number;
}

/**
 * Every model of a fallback chain failed in a way the chain falls over on, or was skipped by its
 * open circuit breaker; `attempts` says what happened to each, `cause` is the last failure.
 */
export class FallbackExhaustedError extends GlassloopError {
  readonly attempts: FallbackAttempt[];
  constructor(attempts: FallbackAttempt[], options?: { cause?: unknown }) {
    const list = attempts.map((a) => `${a.model} (${a.reason}: ${a.error})`).join("; ");
    super("fallback_exhausted", `Every model of the fallback chain failed: ${list}`, options);
    this.attempts = attempts;
  }
}
