import type { ModelPrice } from "./model.js";

/**
 * List prices of common models (Anthropic's cache writes at 1.25x input, the 5-minute cache) in US dollars per million tokens, keyed `provider:model`. They go
 * stale: override or extend them with `setModelPrice`, or pass `price` when building a model.
 */
const table = new Map<string, ModelPrice>(
  Object.entries({
    "openai:gpt-4o": { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
    "openai:gpt-4o-mini": { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
    "openai:gpt-4.1": { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
    "openai:gpt-4.1-mini": { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
    "openai:gpt-4.1-nano": { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
    "openai:gpt-5": { inputPerMTok: 1.25, cachedInputPerMTok: 0.125, outputPerMTok: 10 },
    "openai:gpt-5-mini": { inputPerMTok: 0.25, cachedInputPerMTok: 0.025, outputPerMTok: 2 },
    "openai:gpt-5-nano": { inputPerMTok: 0.05, cachedInputPerMTok: 0.005, outputPerMTok: 0.4 },
    "openai:o3": { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
    "openai:o4-mini": { inputPerMTok: 1.1, cachedInputPerMTok: 0.275, outputPerMTok: 4.4 },
    "anthropic:claude-opus-4-1": {
      inputPerMTok: 15,
      cachedInputPerMTok: 1.5,
      cacheWritePerMTok: 18.75,
      outputPerMTok: 75,
    },
    "anthropic:claude-opus-4-5": {
      inputPerMTok: 5,
      cachedInputPerMTok: 0.5,
      cacheWritePerMTok: 6.25,
      outputPerMTok: 25,
    },
    "anthropic:claude-sonnet-4-5": {
      inputPerMTok: 3,
      cachedInputPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
      outputPerMTok: 15,
    },
    "anthropic:claude-opus-4": {
      inputPerMTok: 15,
      cachedInputPerMTok: 1.5,
      cacheWritePerMTok: 18.75,
      outputPerMTok: 75,
    },
    "anthropic:claude-sonnet-4": {
      inputPerMTok: 3,
      cachedInputPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
      outputPerMTok: 15,
    },
    "anthropic:claude-sonnet-4-0": {
      inputPerMTok: 3,
      cachedInputPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
      outputPerMTok: 15,
    },
    "anthropic:claude-3-7-sonnet": {
      inputPerMTok: 3,
      cachedInputPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
      outputPerMTok: 15,
    },
    "anthropic:claude-haiku-4-5": {
      inputPerMTok: 1,
      cachedInputPerMTok: 0.1,
      cacheWritePerMTok: 1.25,
      outputPerMTok: 5,
    },
    "anthropic:claude-3-5-haiku": {
      inputPerMTok: 0.8,
      cachedInputPerMTok: 0.08,
      cacheWritePerMTok: 1,
      outputPerMTok: 4,
    },
    "google:gemini-2.5-pro": { inputPerMTok: 1.25, cachedInputPerMTok: 0.31, outputPerMTok: 10 },
    "google:gemini-2.5-flash": { inputPerMTok: 0.3, cachedInputPerMTok: 0.075, outputPerMTok: 2.5 },
    "google:gemini-2.5-flash-lite": { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
    "google:gemini-2.0-flash": { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
    "google:gemini-3-pro-preview": { inputPerMTok: 2, cachedInputPerMTok: 0.2, outputPerMTok: 12 },
    "deepseek:deepseek-chat": { inputPerMTok: 0.28, cachedInputPerMTok: 0.028, outputPerMTok: 0.42 },
    "deepseek:deepseek-reasoner": { inputPerMTok: 0.28, cachedInputPerMTok: 0.028, outputPerMTok: 0.42 },
    "groq:llama-3.3-70b-versatile": { inputPerMTok: 0.59, outputPerMTok: 0.79 },
    "groq:llama-3.1-8b-instant": { inputPerMTok: 0.05, outputPerMTok: 0.08 },
  }),
);

/** Providers whose models cost nothing per token (they run on your own machine). */
const free = new Set<string>(["ollama"]);

const FREE: ModelPrice = Object.freeze({ inputPerMTok: 0, outputPerMTok: 0 });

// Dated snapshots cost what their family costs: gpt-4o-2024-08-06, claude-sonnet-4-5-20250929.
const SNAPSHOT = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** The known price of `provider:model` (snapshot dates ignored), or `undefined`. */
export function priceOf(provider: string, model: string): ModelPrice | undefined {
  if (free.has(provider)) return FREE;
  return table.get(`${provider}:${model}`) ?? table.get(`${provider}:${model.replace(SNAPSHOT, "")}`);
}

/** Sets (or with `undefined`, removes) the price of `provider:model`, e.g. `"openai:gpt-4o"`. */
export function setModelPrice(id: string, price: ModelPrice | undefined): void {
  if (!id.includes(":")) throw new TypeError(`setModelPrice: "${id}" must look like "provider:model"`);
  if (price === undefined) table.delete(id);
  else table.set(id, { ...price });
}
