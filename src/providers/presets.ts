import { ConfigError } from "../core/errors.js";
import { credentialsOf, type Endpoint, requireKey } from "../models/http-endpoint.js";
import { priceOf } from "../models/prices.js";
import { chatEndpoint, OpenAIChatModel, type OpenAIChatOptions } from "./openai/definition.js";
import { OPENAI_PRESETS, type OpenAIPreset, type OpenAIPresetName } from "./preset-table.js";
import { registerProvider } from "./resolve.js";

/** Options of a preset model: anything of `OpenAIChatOptions` overrides the preset. */
export interface PresetOptions extends Partial<Omit<OpenAIChatOptions, "model" | "provider">> {
  /** Where keys and base URLs are read from; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * A model of a built-in preset. The key comes from `apiKey` or the preset's variable; it may be
 * missing only when the base URL was changed (a local server), otherwise that is a ConfigError
 * naming the variable to set.
 */
export function presetModel(
  name: OpenAIPresetName,
  model: string,
  options: PresetOptions = {},
): OpenAIChatModel {
  const preset: OpenAIPreset = OPENAI_PRESETS[name];
  if (!model) throw new ConfigError(`Model "${name}:" names no model, e.g. "${name}:${preset.example}"`);
  const { env = process.env, quirks, ...rest } = options;
  const endpoint = presetEndpoint(preset);
  const { apiKey, baseURL } = credentialsOf(endpoint, { ...options, env });
  if (!preset.keyOptional) requireKey(`${name}:${model}`, endpoint, apiKey, baseURL);
  const price = options.price ?? priceOf(name, model);
  return new OpenAIChatModel({
    ...rest,
    model,
    provider: name,
    baseURL,
    ...(apiKey !== undefined && { apiKey }),
    ...(price !== undefined && { price }),
    quirks: { ...preset.quirks, ...quirks },
  });
}

/** A preset as the kit's endpoint data: its base URL, variables and the Chat Completions path. */
export function presetEndpoint(preset: OpenAIPreset): Endpoint {
  return chatEndpoint(preset.baseURL, {
    baseURLEnv: preset.baseURLEnv,
    keyEnv: typeof preset.keyEnv === "string" ? [preset.keyEnv] : (preset.keyEnv ?? []),
    ...(preset.baseURLFromEnv && { baseURLFromEnv: preset.baseURLFromEnv }),
  });
}

/** An OpenAI model, e.g. `openai("gpt-4o-mini")`; any compatible server with `{ baseURL }`. */
export const openai = (model: string, options?: PresetOptions) => presetModel("openai", model, options);
/** A model served by Ollama (`OLLAMA_HOST`, default http://127.0.0.1:11434/v1; no key). */
export const ollama = (model: string, options?: PresetOptions) => presetModel("ollama", model, options);
/** A model through OpenRouter (`OPENROUTER_API_KEY`), e.g. `openrouter("openai/gpt-4o-mini")`. */
export const openrouter = (model: string, options?: PresetOptions) =>
  presetModel("openrouter", model, options);
/** A DeepSeek model (`DEEPSEEK_API_KEY`), e.g. `deepseek("deepseek-chat")`. */
export const deepseek = (model: string, options?: PresetOptions) => presetModel("deepseek", model, options);
/** A model on Groq (`GROQ_API_KEY`), e.g. `groq("llama-3.3-70b-versatile")`. */
export const groq = (model: string, options?: PresetOptions) => presetModel("groq", model, options);

for (const name of Object.keys(OPENAI_PRESETS) as OpenAIPresetName[]) {
  registerProvider(name, (model, env, options) =>
    presetModel(name, model, { env, ...(options?.http && { http: options.http }) }),
  );
}
