import type { ModelPrice } from "./model.js";

/** What the table knows of one model: its list price, context window and longest answer. */
export interface ModelInfo {
  /** US dollars per million tokens. */
  price?: ModelPrice;
  /** Most tokens one request may hold, input and output together. */
  window?: number;
  /** Most tokens one answer may have. */
  maxOutput?: number;
}

/**
 * The day the prices and windows below were taken from the vendors' published pages. They go
 * stale: override or extend them with `setModelInfo` / `setModelPrice`, or pass `price` and
 * `contextWindow` when building a model.
 */
export const MODEL_TABLE_DATE = "2025-11-24";

/**
 * List prices (Anthropic's cache writes at 1.25x input, the 5-minute cache) in US dollars per
 * million tokens, context windows and output limits of common models, keyed `provider:model`.
 */
export const MODEL_TABLE: Readonly<Record<string, ModelInfo>> = {
  "openai:gpt-4o": {
    price: { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
    window: 128_000,
    maxOutput: 16_384,
  },
  "openai:gpt-4o-mini": {
    price: { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
    window: 128_000,
    maxOutput: 16_384,
  },
  "openai:gpt-4.1": {
    price: { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
    window: 1_047_576,
    maxOutput: 32_768,
  },
  "openai:gpt-4.1-mini": {
    price: { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
    window: 1_047_576,
    maxOutput: 32_768,
  },
  "openai:gpt-4.1-nano": {
    price: { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
    window: 1_047_576,
    maxOutput: 32_768,
  },
  "openai:gpt-5": {
    price: { inputPerMTok: 1.25, cachedInputPerMTok: 0.125, outputPerMTok: 10 },
    window: 400_000,
    maxOutput: 128_000,
  },
  "openai:gpt-5-mini": {
    price: { inputPerMTok: 0.25, cachedInputPerMTok: 0.025, outputPerMTok: 2 },
    window: 400_000,
    maxOutput: 128_000,
  },
  "openai:gpt-5-nano": {
    price: { inputPerMTok: 0.05, cachedInputPerMTok: 0.005, outputPerMTok: 0.4 },
    window: 400_000,
    maxOutput: 128_000,
  },
  "openai:o3": {
    price: { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
    window: 200_000,
    maxOutput: 100_000,
  },
  "openai:o4-mini": {
    price: { inputPerMTok: 1.1, cachedInputPerMTok: 0.275, outputPerMTok: 4.4 },
    window: 200_000,
    maxOutput: 100_000,
  },
  "anthropic:claude-opus-4-1": {
    price: { inputPerMTok: 15, cachedInputPerMTok: 1.5, cacheWritePerMTok: 18.75, outputPerMTok: 75 },
    window: 200_000,
    maxOutput: 32_000,
  },
  "anthropic:claude-opus-4-5": {
    price: { inputPerMTok: 5, cachedInputPerMTok: 0.5, cacheWritePerMTok: 6.25, outputPerMTok: 25 },
    window: 200_000,
    maxOutput: 64_000,
  },
  "anthropic:claude-sonnet-4-5": {
    price: { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75, outputPerMTok: 15 },
    window: 200_000,
    maxOutput: 64_000,
  },
  "anthropic:claude-opus-4": {
    price: { inputPerMTok: 15, cachedInputPerMTok: 1.5, cacheWritePerMTok: 18.75, outputPerMTok: 75 },
    window: 200_000,
    maxOutput: 32_000,
  },
  "anthropic:claude-sonnet-4": {
    price: { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75, outputPerMTok: 15 },
    window: 200_000,
    maxOutput: 64_000,
  },
  "anthropic:claude-sonnet-4-0": {
    price: { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75, outputPerMTok: 15 },
    window: 200_000,
    maxOutput: 64_000,
  },
  "anthropic:claude-3-7-sonnet": {
    price: { inputPerMTok: 3, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75, outputPerMTok: 15 },
    window: 200_000,
    maxOutput: 64_000,
  },
  "anthropic:claude-haiku-4-5": {
    price: { inputPerMTok: 1, cachedInputPerMTok: 0.1, cacheWritePerMTok: 1.25, outputPerMTok: 5 },
    window: 200_000,
    maxOutput: 64_000,
  },
  "anthropic:claude-3-5-haiku": {
    price: { inputPerMTok: 0.8, cachedInputPerMTok: 0.08, cacheWritePerMTok: 1, outputPerMTok: 4 },
    window: 200_000,
    maxOutput: 8_192,
  },
  "google:gemini-2.5-pro": {
    price: { inputPerMTok: 1.25, cachedInputPerMTok: 0.31, outputPerMTok: 10 },
    window: 1_048_576,
    maxOutput: 65_536,
  },
  "google:gemini-2.5-flash": {
    price: { inputPerMTok: 0.3, cachedInputPerMTok: 0.075, outputPerMTok: 2.5 },
    window: 1_048_576,
    maxOutput: 65_536,
  },
  "google:gemini-2.5-flash-lite": {
    price: { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
    window: 1_048_576,
    maxOutput: 65_536,
  },
  "google:gemini-2.0-flash": {
    price: { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
    window: 1_048_576,
    maxOutput: 8_192,
  },
  "google:gemini-3-pro-preview": {
    price: { inputPerMTok: 2, cachedInputPerMTok: 0.2, outputPerMTok: 12 },
    window: 1_048_576,
    maxOutput: 65_536,
  },
  "deepseek:deepseek-chat": {
    price: { inputPerMTok: 0.28, cachedInputPerMTok: 0.028, outputPerMTok: 0.42 },
    window: 128_000,
    maxOutput: 8_192,
  },
  "deepseek:deepseek-reasoner": {
    price: { inputPerMTok: 0.28, cachedInputPerMTok: 0.028, outputPerMTok: 0.42 },
    window: 128_000,
    maxOutput: 65_536,
  },
  "groq:llama-3.3-70b-versatile": {
    price: { inputPerMTok: 0.59, outputPerMTok: 0.79 },
    window: 131_072,
    maxOutput: 32_768,
  },
  "groq:llama-3.1-8b-instant": {
    price: { inputPerMTok: 0.05, outputPerMTok: 0.08 },
    window: 131_072,
    maxOutput: 131_072,
  },
  "xai:grok-4": { price: { inputPerMTok: 3, cachedInputPerMTok: 0.75, outputPerMTok: 15 }, window: 256_000 },
  "mistral:mistral-large-latest": { price: { inputPerMTok: 2, outputPerMTok: 6 }, window: 131_072 },
  "mistral:mistral-small-latest": { price: { inputPerMTok: 0.1, outputPerMTok: 0.3 }, window: 131_072 },
};
