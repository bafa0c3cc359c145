import { ConfigError } from "../core/errors.js";
import { FallbackModel, type FallbackOptions } from "../models/fallback/fallback-model.js";
import type { HttpOptions } from "../models/http/call.js";
import type { Model } from "../models/model.js";
import { globalRateLimits, RateLimitedModel, rateLimiter } from "../models/rate-limit/rate-limited-model.js";
import { LocalModel } from "./local/local-model.js";

/** What a `provider:model` string cannot say but its caller can: transport settings for HTTP providers. */
export interface ProviderOptions {
  /** Retries, timeouts, the call deadline and the response caps (ignored by providers without HTTP). */
  http?: HttpOptions;
}

/** Builds a model from the part after `provider:`, the environment and the caller's options. */
export type ProviderFactory = (modelName: string, env: NodeJS.ProcessEnv, options?: ProviderOptions) => Model;

const factories = new Map<string, ProviderFactory>();

/** Makes `provider:model` strings resolve through `factory`. */
export function registerProvider(provider: string, factory: ProviderFactory): void {
  factories.set(provider, factory);
}

/** What names a model: a `Model`, a `"provider:model"` string, or a fallback chain of them (an array). */
export type ModelChoice = string | Model | readonly (string | Model)[];

/**
 * Turns `"provider:model"` (or a `Model`) into a `Model`; an array becomes a `FallbackModel` with
 * default rules (use `fallback()` for your own). Unknown providers are a clear error.
 */
export function resolveModel(
  model: ModelChoice,
  env: NodeJS.ProcessEnv = process.env,
  options?: ProviderOptions,
): Model {
  if (isChain(model)) {
    const members = model.map((m) => resolveModel(m, env, options));
    return members.length === 1 ? (members[0] as Model) : new FallbackModel(members);
  }
  if (typeof model !== "string") return model;
  const colon = model.indexOf(":");
  if (colon <= 0) {
    throw new ConfigError(`Model "${model}" must look like "provider:model", e.g. "openai:gpt-4o-mini"`);
  }
  const provider = model.slice(0, colon);
  const factory = factories.get(provider);
  if (!factory) {
    const known = [...factories.keys()].sort().join(", ") || "none registered";
    throw new ConfigError(`Unknown model provider "${provider}" in "${model}" (known: ${known})`);
  }
  const built = factory(model.slice(colon + 1), env, options);
  // Limits set with setRateLimits apply to every model of the provider named by a string.
  return globalRateLimits(provider) === undefined
    ? built
    : new RateLimitedModel(built, rateLimiter(provider));
}

// The embedded model is always available by name; node-llama-cpp itself is imported on first use.
registerProvider("local", (modelName, env) => new LocalModel(modelName, { env }));

function isChain(model: ModelChoice): model is readonly (string | Model)[] {
  return Array.isArray(model);
}

/** Options of `fallback()`: the chain's rules, plus what resolving `provider:model` strings needs. */
export interface FallbackChainOptions extends FallbackOptions {
  /** Where string models find their keys and base URLs (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Transport settings for string models (retries, timeouts, the deadline). */
  provider?: ProviderOptions;
}

/**
 * A fallback chain over `models`, each a `Model` or a `"provider:model"` string, e.g.
 * `fallback(["anthropic:claude-sonnet-4-5", "openai:gpt-4.1"], { retryAfterThresholdMs: 1000 })`.
 * Its rules are `FallbackModel`'s; it lives beside the resolver because it resolves strings.
 */
export function fallback(
  models: readonly (string | Model)[],
  options: FallbackChainOptions = {},
): FallbackModel {
  const { env, provider, ...rules } = options;
  return new FallbackModel(
    models.map((m) => resolveModel(m, env ?? process.env, provider)),
    rules,
  );
}
