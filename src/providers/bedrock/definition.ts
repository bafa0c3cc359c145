/**
 * Amazon Bedrock through its Converse API: `/model/{id}/converse` and `/converse-stream`, signed
 * with SigV4 (or a Bedrock API key as a bearer token), the stream's binary event-stream framing
 * decoded with its checksums. Any model Converse serves (Anthropic, Nova, Llama, Mistral…) by its
 * model or inference-profile id.
 */

import { ConfigError } from "../../core/errors.js";
import { once } from "../../core/once.js";
import { stopOf } from "../../core/stop.js";
import { defaultPost, type PostFetch } from "../../models/http/node-post.js";
import { type HttpOptions, postJson } from "../../models/http/transport.js";
import { endpointUrl } from "../../models/http/url.js";
import { type Connection, connect, type Endpoint, shownUrl } from "../../models/http-endpoint.js";
import { callHttp, type HttpProvider } from "../../models/http-provider.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { contextWindowOf, priceOf } from "../../models/prices.js";
import { reportedCount } from "../../models/usage-check.js";
import { registerProvider } from "../resolve.js";
import { type AwsCredentialSource, awsRegion } from "./credentials.js";
import type { BedrockCallSettings } from "./protocol.js";
import type { ConverseSettings } from "./request.js";
import type { SigningSettings } from "./signing.js";

const PROVIDER = "bedrock";

/** How to reach a model on Bedrock. */
export interface BedrockOptions extends ConverseSettings {
  /** AWS region; default `AWS_REGION`, `AWS_DEFAULT_REGION`, then the profile's region. */
  region?: string;
  /** Static credentials or a provider of them; default: the environment, then the shared profile files. */
  credentials?: AwsCredentialSource;
  /** A Bedrock API key, sent as a bearer token instead of signing; default `AWS_BEARER_TOKEN_BEDROCK`. */
  apiKey?: string;
  /** Another endpoint (a VPC endpoint, a proxy, a test server); default `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`. */
  baseURL?: string;
  /** Extra headers; they replace ours of the same name, in any case. */
  headers?: Record<string, string>;
  /** Extended thinking for Anthropic models (sent in `additionalModelRequestFields`). */
  thinking?: { budgetTokens: number };
  /** Price per million tokens; default: the table's price of the Anthropic model of the same name. */
  price?: ModelPrice;
  /** Context window in tokens; default: the table's. */
  contextWindow?: number;
  /** Retries and timeouts. */
  http?: HttpOptions;
  /** Where variables and profile files are read from; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

/** Converse's translation, imported on the first call. */
const CONVERSE: () => Promise<HttpProvider<BedrockCallSettings>> = once(() =>
  import("./protocol.js").then((m) => m.CONVERSE),
);
// Signing and the event-stream reader (node:crypto, node:zlib), imported with the first call's signing.
const SIGNING = once(() => import("./signing.js"));

function bedrockEndpoint(model: string, region: string): Endpoint {
  const id = encodeURIComponent(model);
  return {
    defaultBaseURL: `https://bedrock-runtime.${region}.amazonaws.com`,
    baseURLEnv: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
    keyEnv: [],
    url: (base, stream) => endpointUrl(base, `/model/${id}/${stream ? "converse-stream" : "converse"}`),
    headers: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  };
}

/** A model on Amazon Bedrock, called through Converse and ConverseStream. */
export class BedrockModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  /** The AWS region requests are signed for. */
  readonly region: string;
  readonly #connection: Connection;
  readonly #settings: BedrockCallSettings;
  readonly #http: HttpOptions;

  constructor(
    readonly modelName: string,
    options: BedrockOptions = {},
  ) {
    if (!modelName)
      throw new ConfigError(
        'Bedrock model id is empty; use e.g. "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0"',
      );
    const env = options.env ?? process.env;
    this.id = `${PROVIDER}:${modelName}`;
    this.region = awsRegion(PROVIDER, options.region, env);
    const apiKey = options.apiKey ?? (env.AWS_BEARER_TOKEN_BEDROCK?.trim() || undefined);
    const family = familyOf(modelName);
    const window = options.contextWindow ?? contextWindowOf("anthropic", family);
    if (window) this.contextWindow = window;
    this.#connection = connect(
      this.id,
      PROVIDER,
      bedrockEndpoint(modelName, this.region),
      {
        ...(apiKey && { apiKey }),
        ...(options.baseURL && { baseURL: options.baseURL }),
        ...(options.headers && { headers: options.headers }),
        env,
      },
      this.contextWindow,
    );
    const additional = {
      ...options.additionalModelRequestFields,
      ...(options.thinking && {
        thinking: { type: "enabled", budget_tokens: options.thinking.budgetTokens },
      }),
    };
    this.#settings = {
      converse: {
        ...(options.cache && { cache: true }),
        ...(Object.keys(additional).length > 0 && { additionalModelRequestFields: additional }),
      },
    };
    const price = options.price ?? priceOf(PROVIDER, modelName) ?? priceOf("anthropic", family);
    if (price) this.price = price;
    const base = options.http?.fetch ?? defaultPost();
    const sign = apiKey ? undefined : { source: options.credentials, env, region: this.region };
    this.#http = { ...options.http, fetch: signingFetch(base as PostFetch, sign) as typeof fetch };
  }

  /** The URL requests go to. */
  get url(): string {
    return shownUrl(this.#connection);
  }

  /** Sends one Converse request (ConverseStream when `request.stream`) and normalizes the answer. */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    return callHttp(await CONVERSE(), this.#connection, this.#settings, request, observer, this.#http);
  }

  /** The input tokens of `request` by Bedrock's CountTokens (`/model/{id}/count-tokens`), signed like a call. */
  async countTokens(request: ModelRequest): Promise<number> {
    const { toConverseBody } = await import("./request.js");
    const { messages, system, toolConfig } = toConverseBody(request, this.#settings.converse, PROVIDER);
    const reply = await postJson(
      {
        provider: PROVIDER,
        url: this.#connection.url.replace(/\/converse$/, "/count-tokens"),
        headers: this.#connection.headers,
        body: { input: { converse: { messages, system, ...(toolConfig !== undefined && { toolConfig }) } } },
        stop: stopOf(request),
        observer: { onRequest: () => {} },
        secrets: this.#connection.secrets,
      },
      this.#http,
    );
    return reportedCount((reply.body as { inputTokens?: unknown }).inputTokens, "inputTokens", PROVIDER);
  }
}

/**
 * Signs each attempt as it leaves (a fresh `x-amz-date` per retry, over the exact bytes sent) and
 * turns an event-stream answer into server-sent events for the transport's stream reader.
 */
function signingFetch(base: PostFetch, sign: SigningSettings | undefined): PostFetch {
  return async (url, init) => (await SIGNING()).signedPost(base, sign, url, init);
}

/** `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5-20250929`: the name the price table knows. */
function familyOf(modelId: string): string {
  return modelId
    .replace(/^(?:[a-z]{2}|global|apac)\./, "")
    .replace(/^anthropic\./, "")
    .replace(/-v\d+(?::\d+)?$/, "");
}

/** A model on Amazon Bedrock, e.g. `bedrock("us.anthropic.claude-sonnet-4-5-20250929-v1:0")`. */
export const bedrock = (model: string, options?: BedrockOptions) => new BedrockModel(model, options);

registerProvider(
  PROVIDER,
  (model, env, options) => new BedrockModel(model, { env, ...(options?.http && { http: options.http }) }),
);
