/**
 * Claude on Google Vertex AI: Anthropic's Messages wire at a project's endpoint,
 * `…/publishers/anthropic/models/{model}:rawPredict` (`:streamRawPredict` streamed), the model in
 * the URL rather than the body, `anthropic_version: "vertex-2023-10-16"` in the body, and the
 * same OAuth access token as Gemini on Vertex. Answers are Anthropic's, byte for byte.
 */

import { ConfigError } from "../../core/errors.js";
import { once } from "../../core/once.js";
import { stopOf } from "../../core/stop.js";
import {
  CloudCredentialsError,
  TokenBoundModel,
  type TokenProvider,
} from "../../models/cloud-credentials.js";
import type { HttpOptions } from "../../models/http/transport.js";
import { postJson } from "../../models/http/transport.js";
import { endpointUrl } from "../../models/http/url.js";
import { type Connection, connect, type Endpoint } from "../../models/http-endpoint.js";
import { callHttp, type HttpProvider } from "../../models/http-provider.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { contextWindowOf, priceOf } from "../../models/prices.js";
import { reportedCount } from "../../models/usage-check.js";
import type { AnthropicCachePolicy } from "../anthropic/cache.js";
import { ANTHROPIC_PROTOCOL, anthropicSettings } from "../anthropic/definition.js";
import type { AnthropicBodyOptions } from "../anthropic/request.js";
import { vertexLocationURL } from "./definition.js";

/** The `anthropic_version` Vertex AI takes in the body of Claude requests. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

const PROVIDER = "vertex";
// The wire is Anthropic's: its reasoning (signed thinking) is Anthropic's and goes back to Claude.
const WIRE = "anthropic";
const TOKEN_HINT =
  'pass `token` (e.g. () => new GoogleAuth({ scopes: "https://www.googleapis.com/auth/cloud-platform" }).getAccessToken() of google-auth-library: npm i google-auth-library); Claude on Vertex AI takes no express-mode API key';

/** How to reach Claude on Vertex AI. */
export interface VertexAnthropicOptions {
  /** Google Cloud project; default `ANTHROPIC_VERTEX_PROJECT_ID`, then `GOOGLE_CLOUD_PROJECT`. */
  project?: string;
  /** Region, e.g. `us-east5`, `europe-west1`, or `global`; default `CLOUD_ML_REGION`, then `GOOGLE_CLOUD_LOCATION`, then `global`. */
  location?: string;
  /** An OAuth access token for each call (service account, application default credentials). */
  token?: TokenProvider;
  /** Another endpoint (a private one, a proxy, a test server): everything before `/{model}:rawPredict`. */
  baseURL?: string;
  /** Extra headers (e.g. `anthropic-beta`); they replace ours of the same name. */
  headers?: Record<string, string>;
  /** `max_tokens` when a request sets none (default 4096). */
  maxTokens?: number;
  /** Extended thinking: `{ budgetTokens }`; signed thinking blocks go back with the tool results. */
  thinking?: { budgetTokens: number };
  /** Prompt-cache breakpoints, as for Anthropic's own API (on by default). */
  cache?: boolean | Partial<AnthropicCachePolicy>;
  /** Price per million tokens; default: the table's price of the Anthropic model of the same name. */
  price?: ModelPrice;
  /** Context window in tokens; default: the table's. */
  contextWindow?: number;
  http?: HttpOptions;
  /** Where variables are read from; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

/** Anthropic's body for Vertex: no `model` (the URL names it), and Vertex's `anthropic_version`. */
function vertexBody(body: unknown): Record<string, unknown> {
  const { model: _model, ...rest } = body as Record<string, unknown>;
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
}

// Anthropic's protocol, loaded with it on the first call.
const VERTEX_MESSAGES = once(async (): Promise<HttpProvider<AnthropicBodyOptions>> => {
  const messages: HttpProvider<AnthropicBodyOptions> = await ANTHROPIC_PROTOCOL();
  return { ...messages, toBody: (request, settings) => vertexBody(messages.toBody(request, settings)) };
});

/** The path segment of a Vertex model id: `claude-sonnet-4-5@20250929` keeps its `@`, as Google writes it. */
function modelSegment(model: string): string {
  return encodeURIComponent(model).replace(/%40/g, "@");
}

function vertexAnthropicEndpoint(baseURL: string, model: string): Endpoint {
  return {
    defaultBaseURL: baseURL,
    keyEnv: [],
    url: (base, stream) =>
      endpointUrl(base, `/${modelSegment(model)}:${stream ? "streamRawPredict" : "rawPredict"}`),
    headers: () => ({}),
  };
}

/** A Claude model on Vertex AI, e.g. `vertex:claude-sonnet-4-5@20250929`. */
export class VertexAnthropicModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  /** Everything before `/{model}:rawPredict`. */
  readonly baseURL: string;
  readonly #options: VertexAnthropicOptions;
  readonly #settings: AnthropicBodyOptions;
  readonly #connections: TokenBoundModel<Connection>;

  constructor(
    readonly modelName: string,
    options: VertexAnthropicOptions = {},
  ) {
    if (!modelName)
      throw new ConfigError('Vertex model name is empty; use e.g. "vertex:claude-sonnet-4-5@20250929"');
    const env = options.env ?? process.env;
    this.id = `${PROVIDER}:${modelName}`;
    this.#options = options;
    this.#settings = anthropicSettings(modelName, options);
    this.baseURL =
      options.baseURL ??
      `${vertexLocationURL(
        this.id,
        {
          project: options.project ?? (env.ANTHROPIC_VERTEX_PROJECT_ID?.trim() || undefined),
          location: options.location ?? (env.CLOUD_ML_REGION?.trim() || undefined),
        },
        env,
        "global",
      )}/publishers/anthropic/models`;
    if (!options.token)
      throw new CloudCredentialsError(PROVIDER, `Model "${this.id}" needs credentials: ${TOKEN_HINT}`);
    // `claude-sonnet-4-5@20250929` is priced and sized as `claude-sonnet-4-5`.
    const family = modelName.replace(/@.*$/, "");
    const price = options.price ?? priceOf("anthropic", family);
    if (price) this.price = price;
    const window = options.contextWindow ?? contextWindowOf("anthropic", family);
    if (window) this.contextWindow = window;
    this.#connections = new TokenBoundModel(options.token, PROVIDER, TOKEN_HINT, (token) =>
      this.#connectionFor(token),
    );
  }

  /** Sends one request (streamed when `request.stream`) with a fresh access token. */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const connection = await this.#connections.current();
    return callHttp(
      await VERTEX_MESSAGES(),
      connection,
      this.#settings,
      request,
      observer,
      this.#options.http,
    );
  }

  /**
   * The input tokens of `request` by Vertex AI's count endpoint for Claude
   * (`…/publishers/anthropic/models/count-tokens:rawPredict`, the model named in the body).
   */
  async countTokens(request: ModelRequest): Promise<number> {
    const connection = await this.#connections.current();
    const { anthropicCountBody } = await import("../anthropic/protocol.js");
    const reply = await postJson(
      {
        provider: connection.provider,
        url: endpointUrl(this.baseURL, "/count-tokens:rawPredict"),
        headers: connection.headers,
        body: { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...anthropicCountBody(request, this.#settings) },
        stop: stopOf(request),
        observer: { onRequest: () => {} },
        secrets: connection.secrets,
      },
      this.#options.http ?? {},
    );
    return reportedCount((reply.body as { input_tokens?: unknown }).input_tokens, "input_tokens", WIRE);
  }

  #connectionFor(token: string | undefined): Connection {
    return connect(
      this.id,
      WIRE,
      vertexAnthropicEndpoint(this.baseURL, this.modelName),
      {
        baseURL: this.baseURL,
        headers: { authorization: `Bearer ${token ?? ""}`, ...this.#options.headers },
        env: {},
      },
      this.contextWindow,
    );
  }
}

/** Claude on Vertex AI, e.g. `vertexAnthropic("claude-sonnet-4-5@20250929", { project: "my-proj", token })`. */
export const vertexAnthropic = (model: string, options?: VertexAnthropicOptions) =>
  new VertexAnthropicModel(model, options);
