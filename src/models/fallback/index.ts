/** Fallback chains: models tried in order, with per-model circuit breakers. */
export { type BreakerOptions, type BreakerState, CircuitBreakers, sharedBreakers } from "./breaker.js";
export { type FallbackAttempt, FallbackExhaustedError } from "./errors.js";
export {
  DEFAULT_RETRY_AFTER_THRESHOLD_MS,
  FallbackModel,
  type FallbackOptions,
} from "./fallback-model.js";
export { defaultReason } from "./reasons.js";
