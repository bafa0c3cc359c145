import { ConfigError } from "../../core/errors.js";
import { urlSecrets } from "../../core/redact.js";
import { ProviderProtocolError } from "../../models/errors.js";
import { mergeHeaders } from "../../models/http/headers.js";
import { type HttpCall, type HttpOptions, postEvents, postJson, redact } from "../../models/http/index.js";
import { endpointUrl } from "../../models/http/url.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { priceOf } from "../../models/prices.js";
import { reportForeignReasoning } from "../../models/reasoning.js";
import { GEMINI_PROVIDER, type GeminiBodyOptions, toGeminiBody, validatesSignatures } from "./request.js";
import { GeminiAnswer } from "./response.js";

/** Where the Gemini API lives unless `baseURL` or `GOOGLE_GEMINI_BASE_URL` says otherwise. */
export const GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";

/** Options of a Gemini model. */
export interface GeminiOptions {
  /** Sent as `x-goog-api-key`; `GEMINI_API_KEY`, else `GOOGLE_API_KEY`, when unset. */
  apiKey?: string;
  /** Everything before `/models/…`; `GOOGLE_GEMINI_BASE_URL` when unset, else Google's v1beta. */
  baseURL?: string;
  /** Extra headers; they replace ours of the same name in any letter case. */
  headers?: Record<string, string>;
  /** Price per million tokens; the price table's `google:<model>` entry by default. */
  price?: ModelPrice;
  /** `thinkingConfig`: a token budget and whether thought summaries come back (as reasoning parts). */
  thinking?: GeminiBodyOptions["thinking"];
  /** Retries, timeouts, and the fetch to use. */
  http?: HttpOptions;
  /** Where the key and base URL come from when unset (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * A Gemini model behind the Gemini API (`generateContent`, `streamGenerateContent?alt=sse`).
 * Thought signatures come back as reasoning parts and go back exactly, on the part they came on.
 */
export class GeminiModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly #generateUrl: string;
  readonly #streamUrl: string;
  readonly #options: GeminiOptions;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];

  constructor(
    readonly modelName: string,
    options: GeminiOptions = {},
  ) {
    const env = options.env ?? process.env;
    if (!modelName) throw new ConfigError('Gemini model name is empty; use e.g. "google:gemini-2.5-flash"');
    this.id = `google:${modelName}`;
    const apiKey = options.apiKey || env.GEMINI_API_KEY?.trim() || env.GOOGLE_API_KEY?.trim() || undefined;
    const base = options.baseURL ?? (env.GOOGLE_GEMINI_BASE_URL?.trim() || GEMINI_DEFAULT_BASE_URL);
    const secrets = apiKey ? [apiKey] : [];
    // The one endpoint rule of every provider: path appended, the base URL's query kept after it
    // (and combined with the stream's own `alt=sse`).
    const path = `/models/${encodeURIComponent(modelName)}`;
    this.#generateUrl = endpointUrl(base, `${path}:generateContent`);
    this.#streamUrl = endpointUrl(base, `${path}:streamGenerateContent`, { alt: "sse" });
    if (!URL.canParse(this.#generateUrl) || !/^https?:$/.test(new URL(this.#generateUrl).protocol))
      throw new ConfigError(
        `Model "${this.id}": baseURL "${redact(base, [...secrets, ...urlSecrets(base)])}" is not an http(s) URL`,
      );
    if (!apiKey && this.#generateUrl === endpointUrl(GEMINI_DEFAULT_BASE_URL, `${path}:generateContent`))
      throw new ConfigError(
        `Model "${this.id}" needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY), or pass apiKey`,
      );
    this.#options = options;
    this.#secrets = secrets;
    this.#headers = mergeHeaders(apiKey !== undefined && { "x-goog-api-key": apiKey }, options.headers);
    const price = options.price ?? priceOf("google", modelName);
    if (price) this.price = price;
  }

  /** Sends one request (streamed when `request.stream`) and normalizes the answer. */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    reportForeignReasoning(request.messages, GEMINI_PROVIDER, observer);
    const body = toGeminiBody(request, {
      ...(this.#options.thinking && { thinking: this.#options.thinking }),
      placeholderSignatures: validatesSignatures(this.modelName),
    });
    const call: HttpCall = {
      provider: "google",
      url: request.stream ? this.#streamUrl : this.#generateUrl,
      headers: this.#headers,
      body,
      signal: request.signal,
      observer,
      secrets: this.#secrets,
    };
    const http = this.#options.http ?? {};
    if (!request.stream) {
      const answer = new GeminiAnswer(call.provider);
      answer.add((await postJson(call, http)).body);
      return answer.finish(false);
    }
    // The transport may retry until a delta reached the caller; each attempt collects afresh.
    let answer!: GeminiAnswer;
    await postEvents(
      call,
      (deliver) => {
        const current = new GeminiAnswer(call.provider, deliver);
        answer = current;
        return (event) => {
          let chunk: unknown;
          try {
            chunk = JSON.parse(event.data);
          } catch (cause) {
            throw new ProviderProtocolError(
              `${call.provider} sent a stream chunk that is not JSON`,
              { provider: call.provider, excerpt: redact(event.data, this.#secrets).slice(0, 500) },
              { cause },
            );
          }
          current.add(chunk);
          // Gemini's stream has no end marker: the chunk with the finish reason (and the final
          // usage) is the last one.
          return current.finished;
        };
      },
      http,
    );
    return answer.finish(true);
  }
}
