/** Client-side rate limits per provider and key, shared by every run in the process. */
export { type Limiter, type Permit, RateLimiter, type RateLimits, type RateLimitWait } from "./limiter.js";
export {
  globalRateLimits,
  providerOf,
  RateLimitedModel,
  type RateLimitedOptions,
  rateLimited,
  rateLimiter,
  setRateLimits,
} from "./rate-limited-model.js";
