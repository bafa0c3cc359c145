import { ConfigError } from "../../core/errors.js";
import { urlSecrets } from "../../core/redact.js";
import { errorForStatus, type ProviderError } from "../../models/errors.js";
import {
  type HttpCall,
  type HttpOptions,
  mergeHeaders,
  postEvents,
  postJson,
  redact,
} from "../../models/http/index.js";
import { endpointUrl } from "../../models/http/url.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { priceOf } from "../../models/prices.js";
import { reportForeignReasoning } from "../../models/reasoning.js";
import { ANTHROPIC_CACHE_DEFAULT, type AnthropicCachePolicy } from "./cache.js";
import { anthropicProtocolError } from "./protocol-error.js";
import { toAnthropicBody } from "./request.js";
import { fromAnthropicMessage } from "./response.js";
import { AnthropicStreamAssembler, AnthropicStreamErrorEvent } from "./stream.js";
import type { AnthropicErrorBody } from "./wire.js";

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

/**
 * A model behind Anthropic's Messages API (`POST /v1/messages`), streaming or not. The body sent
 * is exactly the one the `model_request` event shows; the key travels in `x-api-key` and never
 * appears in an error, an event or a log.
 */
export class AnthropicModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  /** The URL requests go to, exactly (userinfo and query included); kept private so no log or JSON.stringify of the model shows its credentials. */
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #options: AnthropicOptions;
  readonly #cache: AnthropicCachePolicy | undefined;

  /** The URL requests go to, with credentials in it (userinfo, `?key=`) redacted. */
  get url(): string {
    return redact(this.#url, urlSecrets(this.#url));
  }

  constructor(
    readonly modelName: string,
    options: AnthropicOptions = {},
  ) {
    const env = options.env ?? process.env;
    const apiKey = options.apiKey || env.ANTHROPIC_API_KEY?.trim() || undefined;
    const baseURL = options.baseURL ?? (env.ANTHROPIC_BASE_URL?.trim() || ANTHROPIC_DEFAULT_BASE_URL);
    // The rule of the OpenAI presets: a key is required only for Anthropic's own API; a compatible
    // server elsewhere (a proxy, a local server) may need none.
    if (!apiKey && messagesUrl(baseURL) === messagesUrl(ANTHROPIC_DEFAULT_BASE_URL)) {
      throw new ConfigError(
        `Model "anthropic:${modelName}" needs an API key: set ANTHROPIC_API_KEY (or pass apiKey)`,
      );
    }
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
    this.#cache =
      options.cache === false
        ? undefined
        : { ...ANTHROPIC_CACHE_DEFAULT, ...(typeof options.cache === "object" && options.cache) };
    this.id = `anthropic:${modelName}`;
    this.#apiKey = apiKey;
    this.#options = { ...options, maxTokens };
    const price = options.price ?? priceOf("anthropic", modelName);
    if (price) this.price = price;
    this.#url = messagesUrl(baseURL);
  }

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    reportForeignReasoning(request.messages, "anthropic", observer);
    const body = toAnthropicBody(request, {
      model: this.modelName,
      maxTokens: this.#options.maxTokens as number,
      ...(this.#options.thinking && { thinkingBudget: this.#options.thinking.budgetTokens }),
      ...(this.#cache && { cache: this.#cache }),
    });
    const call: HttpCall = {
      provider: "anthropic",
      url: this.#url,
      // The user's headers win, whatever their letter case (docs/providers.md): a gateway's key,
      // a newer anthropic-version.
      headers: mergeHeaders(
        { "anthropic-version": ANTHROPIC_VERSION },
        this.#apiKey !== undefined && { "x-api-key": this.#apiKey },
        this.#options.headers,
      ),
      body,
      signal: request.signal,
      observer,
      secrets: this.#secrets,
    };
    const http = this.#options.http ?? {};
    if (!request.stream) return fromAnthropicMessage((await postJson(call, http)).body);

    // The transport may retry until a delta reached the caller; each attempt assembles afresh.
    // Set by the first attempt, which has run once postEvents resolves.
    let assembler!: AnthropicStreamAssembler;
    await postEvents(
      call,
      (deliver) => {
        const current = new AnthropicStreamAssembler(deliver);
        assembler = current;
        return (event) => {
          let data: unknown;
          try {
            data = JSON.parse(event.data);
          } catch {
            throw anthropicProtocolError("an event's data is not JSON", event.data);
          }
          try {
            current.push(data);
          } catch (error) {
            if (error instanceof AnthropicStreamErrorEvent) throw this.#streamError(error.body);
            throw error;
          }
          // After message_stop nothing more is read, even if the server keeps the connection open.
          return current.done;
        };
      },
      http,
    );
    // A stream that ended without message_stop is reported by `finish` as cut off.
    return assembler.finish();
  }

  get #secrets(): string[] {
    return this.#apiKey === undefined ? [] : [this.#apiKey];
  }

  /** A stream's `error` event as the typed error the same error would be over HTTP. */
  #streamError(body: AnthropicErrorBody): ProviderError {
    const clean = redact(JSON.stringify(body), this.#secrets);
    const parsed = JSON.parse(clean) as AnthropicErrorBody;
    const type = parsed.error?.type ?? "";
    return errorForStatus({
      provider: "anthropic",
      status: STATUS_OF_ERROR_TYPE[type] ?? 500,
      excerpt: clean.slice(0, 500),
      body: parsed,
    });
  }
}

/** Anthropic's error types and the HTTP statuses they come with, for errors sent inside a stream. */
const STATUS_OF_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

function messagesUrl(baseURL: string): string {
  const path = URL.canParse(baseURL) ? new URL(baseURL).pathname : baseURL;
  return endpointUrl(baseURL, path.replace(/\/+$/, "").endsWith("/v1") ? "/messages" : "/v1/messages");
}
