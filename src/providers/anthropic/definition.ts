import { ConfigError } from "../../core/errors.js";
import { once } from "../../core/once.js";
import { stopOf } from "../../core/stop.js";
import type { HttpOptions } from "../../models/http/call.js";
import { postJson } from "../../models/http/transport.js";
import { endpointUrl } from "../../models/http/url.js";
import { type Connection, connect, type Endpoint, shownUrl } from "../../models/http-endpoint.js";
import { callHttp, type HttpProvider } from "../../models/http-provider.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { contextWindowOf, priceOf } from "../../models/prices.js";
import { reportedCount } from "../../models/usage-check.js";
import { ANTHROPIC_CACHE_DEFAULT, type AnthropicCachePolicy } from "./cache.js";
import type { AnthropicBodyOptions } from "./request.js";

/** Where the Anthropic API lives unless `baseURL` or `ANTHROPIC_BASE_URL` says otherwise. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
/** The `anthropic-version` header glassloop speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";
/** `max_tokens` when neither the request nor the options set one (Anthropic requires it). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** Options of an Anthropic model. */
export interface AnthropicOptions {
  /**
   * The API key; `ANTHROPIC_API_KEY` from the environment when unset. Required for Anthropic's own
   * API; optional when the base URL points at a compatible server elsewhere.
   */
  apiKey?: string;
  /** The API root without `/v1` (a trailing `/v1` is accepted too); `ANTHROPIC_BASE_URL` when unset. */
  baseURL?: string;
  /** `max_tokens` for requests that set no `maxOutputTokens` (default 4096). */
  maxTokens?: number;
  /** Extra headers, e.g. `anthropic-beta`; they replace ours of the same name in any letter case (`anthropic-version` too). */
  headers?: Record<string, string>;
  /** Price per million tokens, for `usage.costUsd` and `limits.maxCostUsd`; the price table's by default. */
  price?: ModelPrice;
  /** Context window in tokens; default: the table's. A request known to exceed it is refused before sending. */
  contextWindow?: number;
  /** Retries, timeouts, and the fetch to use. */
  http?: HttpOptions;
  /** Where `apiKey` and `baseURL` come from when unset (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /**
   * Extended thinking: `{ budgetTokens }` (at least 1024, below `maxTokens`). Thinking blocks and
   * their signatures are kept in the transcript and sent back unchanged with the tool results.
   */
  thinking?: { budgetTokens: number };
  /**
   * Prompt-cache breakpoints (docs/providers.md): on by default on the last tool, the system prompt
   * and the last message; `false` turns them off, an object switches each one.
   */
  cache?: boolean | Partial<AnthropicCachePolicy>;
}

/** A call's settings: what the model adds to the request. */
type AnthropicCallSettings = AnthropicBodyOptions;

/** Where Anthropic lives: `<baseURL>/v1/messages`, the key in `x-api-key`, the protocol version. */
export const ANTHROPIC_ENDPOINT: Endpoint = {
  defaultBaseURL: ANTHROPIC_DEFAULT_BASE_URL,
  baseURLEnv: "ANTHROPIC_BASE_URL",
  keyEnv: ["ANTHROPIC_API_KEY"],
  url: (base) => messagesUrl(base),
  headers: (apiKey) => ({
    "anthropic-version": ANTHROPIC_VERSION,
    ...(apiKey !== undefined && { "x-api-key": apiKey }),
  }),
};

/**
 * The Messages protocol (request, answer and stream translation), imported on the first call: a
 * program that never calls Anthropic does not load it.
 */
export const ANTHROPIC_PROTOCOL: () => Promise<HttpProvider<AnthropicCallSettings>> = once(() =>
  import("./protocol.js").then((m) => m.ANTHROPIC_MESSAGES),
);

/**
 * A call's settings from the options (the model name, `max_tokens`, thinking, cache breakpoints),
 * checked: the same for Anthropic's own API and for Claude on a cloud.
 */
export function anthropicSettings(
  modelName: string,
  options: Pick<AnthropicOptions, "maxTokens" | "thinking" | "cache">,
): AnthropicBodyOptions {
  if (!modelName)
    throw new ConfigError('Anthropic model name is empty; use e.g. "anthropic:claude-sonnet-4-5"');
  const maxTokens = options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new ConfigError(
      `Anthropic maxTokens must be a whole number >= 1, got ${String(options.maxTokens)}`,
    );
  }
  const budget = options.thinking?.budgetTokens;
  if (budget !== undefined && (!Number.isInteger(budget) || budget < 1024 || budget >= maxTokens)) {
    throw new ConfigError(
      `Anthropic thinking.budgetTokens must be a whole number >= 1024 and below maxTokens (${maxTokens}), got ${String(budget)}`,
    );
  }
  const cache =
    options.cache === false
      ? undefined
      : { ...ANTHROPIC_CACHE_DEFAULT, ...(typeof options.cache === "object" && options.cache) };
  return {
    model: modelName,
    maxTokens,
    ...(options.thinking && { thinkingBudget: options.thinking.budgetTokens }),
    ...(cache && { cache }),
  };
}

/**
 * A model behind Anthropic's Messages API (`POST /v1/messages`), streaming or not. The body sent
 * is exactly the one the `model_request` event shows; the key travels in `x-api-key` and never
 * appears in an error, an event or a log.
 */
export class AnthropicModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  readonly #connection: Connection;
  readonly #settings: AnthropicCallSettings;
  readonly #http: HttpOptions;

  /** The URL requests go to, with credentials in it (userinfo, `?key=`) redacted. */
  get url(): string {
    return shownUrl(this.#connection);
  }

  constructor(
    readonly modelName: string,
    options: AnthropicOptions = {},
  ) {
    this.id = `anthropic:${modelName}`;
    // The rule of the OpenAI presets: a key is required only for Anthropic's own API; a compatible
    // server elsewhere (a proxy, a local server) may need none.
    const window = options.contextWindow ?? contextWindowOf("anthropic", modelName);
    if (window !== undefined) this.contextWindow = window;
    this.#connection = connect(this.id, "anthropic", ANTHROPIC_ENDPOINT, options, window);
    this.#settings = anthropicSettings(modelName, options);
    this.#http = options.http ?? {};
    const price = options.price ?? priceOf("anthropic", modelName);
    if (price) this.price = price;
  }

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    return callHttp(
      await ANTHROPIC_PROTOCOL(),
      this.#connection,
      this.#settings,
      request,
      observer,
      this.#http,
    );
  }

  /** The input tokens of `request` by Anthropic's count endpoint (`/v1/messages/count_tokens`): one extra call, not billed as one. */
  async countTokens(request: ModelRequest): Promise<number> {
    const { anthropicCountBody } = await import("./protocol.js");
    const body = anthropicCountBody(request, this.#settings);
    const url = new URL(this.#connection.url);
    url.pathname = `${url.pathname.replace(/\/+$/, "")}/count_tokens`;
    const reply = await postJson(
      {
        provider: "anthropic",
        url: url.toString(),
        headers: this.#connection.headers,
        body,
        stop: stopOf(request),
        observer: { onRequest: () => {} },
        secrets: this.#connection.secrets,
      },
      this.#http,
    );
    return reportedCount(
      (reply.body as { input_tokens?: unknown }).input_tokens,
      "input_tokens",
      "anthropic",
    );
  }
}

function messagesUrl(baseURL: string): string {
  const path = URL.canParse(baseURL) ? new URL(baseURL).pathname : baseURL;
  return endpointUrl(baseURL, path.replace(/\/+$/, "").endsWith("/v1") ? "/messages" : "/v1/messages");
}
