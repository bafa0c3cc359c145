import type { ToolCallIdRules } from "../models/tool-call-ids.js";
import { COMPATIBLE_QUIRKS, OPENAI_QUIRKS, type OpenAIQuirks } from "./openai/quirks.js";

/** Where an OpenAI-compatible provider lives, how it is authenticated, and how it differs from OpenAI. */
export interface OpenAIPreset {
  /** Used when neither the `baseURL` option nor `baseURLEnv` says otherwise. */
  baseURL: string;
  /** Environment variable that replaces the base URL. */
  baseURLEnv: string;
  /** Environment variable(s) holding the API key, the first set one wins; absent for servers that take none. */
  keyEnv?: string | readonly string[];
  /**
   * The key may be missing even at the default base URL: a server on your own machine that only
   * checks a key when it was started with one (vLLM's and llama.cpp's `--api-key`).
   */
  keyOptional?: boolean;
  quirks: Readonly<OpenAIQuirks>;
  /** Turns the `baseURLEnv` value into a base URL (Ollama's variable holds a bare host). */
  baseURLFromEnv?: (value: string) => string;
  /** A model name the vendor serves, shown in error messages and docs. */
  example: string;
  /** What differs from OpenAI, in a sentence (shown in docs; the quirks are the behaviour). */
  note?: string;
}

/** Mistral's rule: a tool-call id is exactly 9 letters or digits (`FI5qQGzDE`); any other is a 400. */
const MISTRAL_TOOL_CALL_IDS: ToolCallIdRules = {
  allowedChar: /[A-Za-z0-9]/,
  maxLength: 9,
  fixedLength: 9,
  prefix: "call",
};

/**
 * The built-in OpenAI-compatible vendors, one data entry each (a `provider:` prefix of model
 * strings). Adding a vendor is adding an entry here: its base URL, key variable and quirks.
 */
export const OPENAI_PRESETS = {
  openai: {
    baseURL: "https://api.openai.com/v1",
    baseURLEnv: "OPENAI_BASE_URL",
    keyEnv: "OPENAI_API_KEY",
    quirks: OPENAI_QUIRKS,
    example: "gpt-4o-mini",
  },
  ollama: {
    baseURL: "http://127.0.0.1:11434/v1",
    baseURLEnv: "OLLAMA_HOST",
    quirks: COMPATIBLE_QUIRKS,
    baseURLFromEnv: ollamaBaseURL,
    example: "llama3.2",
    note: "No key; `OLLAMA_HOST` is read as Ollama reads it (a bare `host:port` works).",
  },
  openrouter: {
    baseURL: "https://openrouter.ai/api/v1",
    baseURLEnv: "OPENROUTER_BASE_URL",
    keyEnv: "OPENROUTER_API_KEY",
    quirks: COMPATIBLE_QUIRKS,
    example: "openai/gpt-4o-mini",
    note: "Model names carry the upstream vendor (`anthropic/claude-sonnet-4.5`).",
  },
  mistral: {
    baseURL: "https://api.mistral.ai/v1",
    baseURLEnv: "MISTRAL_BASE_URL",
    keyEnv: "MISTRAL_API_KEY",
    // Mistral refuses fields it does not know (422) and sends the usage in the last chunk anyway.
    quirks: { ...COMPATIBLE_QUIRKS, streamUsage: false, toolCallIds: MISTRAL_TOOL_CALL_IDS },
    example: "mistral-large-latest",
    note: "Tool-call ids are exactly 9 letters or digits; other providers' ids are rewritten to fit. No `stream_options`.",
  },
  xai: {
    baseURL: "https://api.x.ai/v1",
    baseURLEnv: "XAI_BASE_URL",
    keyEnv: "XAI_API_KEY",
    quirks: COMPATIBLE_QUIRKS,
    example: "grok-4",
  },
  deepseek: {
    baseURL: "https://api.deepseek.com/v1",
    baseURLEnv: "DEEPSEEK_BASE_URL",
    keyEnv: "DEEPSEEK_API_KEY",
    quirks: COMPATIBLE_QUIRKS,
    example: "deepseek-chat",
    note: "`reasoning_content` is read but never sent back (DeepSeek rejects it in a request).",
  },
  groq: {
    baseURL: "https://api.groq.com/openai/v1",
    baseURLEnv: "GROQ_BASE_URL",
    keyEnv: "GROQ_API_KEY",
    // Groq validates the model's tool calls itself and fails the request when one is malformed.
    quirks: { ...COMPATIBLE_QUIRKS, recoverToolUseFailed: true },
    example: "llama-3.3-70b-versatile",
    note: "A `tool_use_failed` 400 (Groq refusing the model's own malformed call) becomes that call, answered with feedback.",
  },
  together: {
    baseURL: "https://api.together.xyz/v1",
    baseURLEnv: "TOGETHER_BASE_URL",
    keyEnv: ["TOGETHER_API_KEY", "TOGETHER_AI_API_KEY"],
    quirks: COMPATIBLE_QUIRKS,
    example: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
  },
  fireworks: {
    baseURL: "https://api.fireworks.ai/inference/v1",
    baseURLEnv: "FIREWORKS_BASE_URL",
    keyEnv: "FIREWORKS_API_KEY",
    quirks: COMPATIBLE_QUIRKS,
    example: "accounts/fireworks/models/llama-v3p3-70b-instruct",
    note: "Model names are account paths (`accounts/fireworks/models/…`).",
  },
  cerebras: {
    baseURL: "https://api.cerebras.ai/v1",
    baseURLEnv: "CEREBRAS_BASE_URL",
    keyEnv: "CEREBRAS_API_KEY",
    quirks: COMPATIBLE_QUIRKS,
    example: "llama-3.3-70b",
  },
  lmstudio: {
    baseURL: "http://127.0.0.1:1234/v1",
    baseURLEnv: "LMSTUDIO_BASE_URL",
    quirks: COMPATIBLE_QUIRKS,
    example: "qwen2.5-7b-instruct",
    note: "LM Studio's local server; no key. The model name is the one LM Studio shows as loaded.",
  },
  vllm: {
    baseURL: "http://127.0.0.1:8000/v1",
    baseURLEnv: "VLLM_BASE_URL",
    keyEnv: "VLLM_API_KEY",
    keyOptional: true,
    quirks: COMPATIBLE_QUIRKS,
    example: "Qwen/Qwen2.5-7B-Instruct",
    note: "`vllm serve`; the key only when the server was started with `--api-key`. Tool calls need `--enable-auto-tool-choice`.",
  },
  llamacpp: {
    baseURL: "http://127.0.0.1:8080/v1",
    baseURLEnv: "LLAMACPP_BASE_URL",
    keyEnv: "LLAMA_API_KEY",
    keyOptional: true,
    quirks: COMPATIBLE_QUIRKS,
    example: "default",
    note: "`llama-server`; the key only with `--api-key`. Tool calls need `--jinja`.",
  },
} satisfies Record<string, OpenAIPreset>;

/** Name of a built-in OpenAI-compatible preset. */
export type OpenAIPresetName = keyof typeof OPENAI_PRESETS;

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
