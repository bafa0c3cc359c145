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
import type { GoogleApi } from "./count.js";
import { GEMINI_PROVIDER, validatesSignatures } from "./model-name.js";
import type { GeminiBodyOptions } from "./request.js";

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
  /** Context window in tokens; default: the table's. A request known to exceed it is refused before sending. */
  contextWindow?: number;
  /** `thinkingConfig`: a token budget and whether thought summaries come back (as reasoning parts). */
  thinking?: GeminiBodyOptions["thinking"];
  /**
   * Which Google API the base URL serves: the Gemini API (default) or Vertex AI. The wire is the
   * same but for the count endpoint's body.
   */
  api?: GoogleApi;
  /** Retries, timeouts, and the fetch to use. */
  http?: HttpOptions;
  /** Where the key and base URL come from when unset (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** Where Gemini lives: `<baseURL>/models/<model>:generateContent` (`:streamGenerateContent?alt=sse`), the key in `x-goog-api-key`. */
export function geminiEndpoint(modelName: string): Endpoint {
  // The one endpoint rule of every provider: path appended, the base URL's query kept after it
  // (and combined with the stream's own `alt=sse`).
  const path = `/models/${encodeURIComponent(modelName)}`;
  return {
    defaultBaseURL: GEMINI_DEFAULT_BASE_URL,
    baseURLEnv: "GOOGLE_GEMINI_BASE_URL",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    url: (base, stream) =>
      stream
        ? endpointUrl(base, `${path}:streamGenerateContent`, { alt: "sse" })
        : endpointUrl(base, `${path}:generateContent`),
    headers: (apiKey): Record<string, string> => (apiKey !== undefined ? { "x-goog-api-key": apiKey } : {}),
  };
}

/** The Gemini protocol (request, answer and stream translation), imported on the first call. */
export const GEMINI_PROTOCOL: () => Promise<HttpProvider<GeminiBodyOptions>> = once(() =>
  import("./protocol.js").then((m) => m.GEMINI_GENERATE),
);

/**
 * A Gemini model behind the Gemini API (`generateContent`, `streamGenerateContent?alt=sse`).
 * Thought signatures come back as reasoning parts and go back exactly, on the part they came on.
 */
export class GeminiModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  readonly #connection: Connection;
  readonly #settings: GeminiBodyOptions;
  readonly #http: HttpOptions;
  readonly #api: GoogleApi;

  constructor(
    readonly modelName: string,
    options: GeminiOptions = {},
  ) {
    if (!modelName) throw new ConfigError('Gemini model name is empty; use e.g. "google:gemini-2.5-flash"');
    this.id = `google:${modelName}`;
    const window = options.contextWindow ?? contextWindowOf("google", modelName);
    if (window !== undefined) this.contextWindow = window;
    this.#connection = connect(this.id, GEMINI_PROVIDER, geminiEndpoint(modelName), options, window);
    this.#settings = {
      ...(options.thinking && { thinking: options.thinking }),
      placeholderSignatures: validatesSignatures(modelName),
    };
    this.#http = options.http ?? {};
    this.#api = options.api ?? "gemini";
    const price = options.price ?? priceOf("google", modelName);
    if (price) this.price = price;
  }

  /** The URL requests go to, with credentials in it (userinfo, `?key=`) redacted. */
  get url(): string {
    return shownUrl(this.#connection);
  }

  /** Sends one request (streamed when `request.stream`) and normalizes the answer. */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    return callHttp(await GEMINI_PROTOCOL(), this.#connection, this.#settings, request, observer, this.#http);
  }

  /** The input tokens of `request` by Google's count endpoint (`:countTokens`): one extra call, free of charge. */
  async countTokens(request: ModelRequest): Promise<number> {
    const { countUrl, toCountBody } = await import("./count.js");
    const reply = await postJson(
      {
        provider: this.#connection.provider,
        url: countUrl(this.#connection.url),
        headers: this.#connection.headers,
        body: toCountBody(request, this.#settings, this.modelName, this.#api),
        stop: stopOf(request),
        observer: { onRequest: () => {} },
        secrets: this.#connection.secrets,
      },
      this.#http,
    );
    return reportedCount(
      (reply.body as { totalTokens?: unknown }).totalTokens,
      "totalTokens",
      this.#connection.provider,
    );
  }
}
