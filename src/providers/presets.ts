import { ConfigError } from "../core/errors.js";
import { credentialsOf, type Endpoint, requireKey } from "../models/http-provider.js";
import { priceOf } from "../models/prices.js";
import { chatEndpoint, OpenAIChatModel, type OpenAIChatOptions } from "./openai/definition.js";
import { COMPATIBLE_QUIRKS, OPENAI_QUIRKS, type OpenAIQuirks } from "./openai/quirks.js";
import { registerProvider } from "./resolve.js";

/** Where an OpenAI-compatible provider lives, how it is authenticated, and how it differs from OpenAI. */
export interface OpenAIPreset {
  /** Used when neither the `baseURL` option nor `baseURLEnv` says otherwise. */
  baseURL: string;
  /** Environment variable that replaces the base URL. */
  baseURLEnv: string;
  /** Environment variable holding the API key; absent for servers that need none. */
  keyEnv?: string;
  quirks: Readonly<OpenAIQuirks>;
  /** Turns the `baseURLEnv` value into a base URL (Ollama's variable holds a bare host). */
  baseURLFromEnv?: (value: string) => string;
}

/** The built-in presets, each one a `provider:` prefix of model strings. */
export const OPENAI_PRESETS = {
  openai: {
    baseURL: "https://api.openai.com/v1",
    baseURLEnv: "OPENAI_BASE_URL",
    keyEnv: "OPENAI_API_KEY",
    quirks: OPENAI_QUIRKS,
  },
  ollama: {
    baseURL: "http://127.0.0.1:11434/v1",
    baseURLEnv: "OLLAMA_HOST",
    quirks: COMPATIBLE_QUIRKS,
    baseURLFromEnv: ollamaBaseURL,
  },
  openrouter: {
    baseURL: "https://openrouter.ai/api/v1",
    baseURLEnv: "OPENROUTER_BASE_URL",
    keyEnv: "OPENROUTER_API_KEY",
    quirks: COMPATIBLE_QUIRKS,
  },
  deepseek: {
    baseURL: "https://api.deepseek.com/v1",
    baseURLEnv: "DEEPSEEK_BASE_URL",
    keyEnv: "DEEPSEEK_API_KEY",
    quirks: COMPATIBLE_QUIRKS,
  },
  groq: {
    baseURL: "https://api.groq.com/openai/v1",
    baseURLEnv: "GROQ_BASE_URL",
    keyEnv: "GROQ_API_KEY",
    // Groq validates the model's tool calls itself and fails the request when one is malformed.
    quirks: { ...COMPATIBLE_QUIRKS, recoverToolUseFailed: true },
  },
} satisfies Record<string, OpenAIPreset>;

/** Name of a built-in OpenAI-compatible preset. */
export type OpenAIPresetName = keyof typeof OPENAI_PRESETS;

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
  if (!model) throw new ConfigError(`Model "${name}:" names no model, e.g. "${name}:${exampleModel(name)}"`);
  const { env = process.env, quirks, ...rest } = options;
  const endpoint = presetEndpoint(preset);
  const { apiKey, baseURL } = credentialsOf(endpoint, { ...options, env });
  requireKey(`${name}:${model}`, endpoint, apiKey, baseURL);
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
    keyEnv: preset.keyEnv ? [preset.keyEnv] : [],
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

/** `OLLAMA_HOST` as Ollama itself reads it (`host:port`, maybe a scheme) turned into its /v1 URL. */
export function ollamaBaseURL(value: string): string {
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  // 0.0.0.0 is how the server is told to listen everywhere; a client reaches it on loopback.
  if (url.hostname === "0.0.0.0") url.hostname = "127.0.0.1";
  // Like Ollama's own client: a plain-http host without a port means Ollama's port.
  if (url.protocol === "http:" && url.port === "") url.port = "11434";
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path.endsWith("/v1") ? path : `${path}/v1`}`;
}

function exampleModel(name: OpenAIPresetName): string {
  return {
    openai: "gpt-4o-mini",
    ollama: "llama3.2",
    openrouter: "openai/gpt-4o-mini",
    deepseek: "deepseek-chat",
    groq: "llama-3.3-70b-versatile",
  }[name];
}

for (const name of Object.keys(OPENAI_PRESETS) as OpenAIPresetName[]) {
  registerProvider(name, (model, env, options) =>
    presetModel(name, model, { env, ...(options?.http && { http: options.http }) }),
  );
}
