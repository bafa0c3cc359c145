import { ConfigError } from "../errors.js";
import type { HttpOptions } from "./http/call.js";
import { LocalModel } from "./local/local-model.js";
import type { Model } from "./model.js";

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

/** Turns `"provider:model"` (or a `Model`) into a `Model`; unknown providers are a clear error. */
export function resolveModel(
  model: string | Model,
  env: NodeJS.ProcessEnv = process.env,
  options?: ProviderOptions,
): Model {
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
  return factory(model.slice(colon + 1), env, options);
}

// The embedded model is always available by name; node-llama-cpp itself is imported on first use.
registerProvider("local", (modelName, env) => new LocalModel(modelName, { env }));
