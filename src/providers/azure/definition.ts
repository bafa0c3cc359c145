/**
 * Azure OpenAI: a deployment reached through Chat Completions or the Responses API, with an
 * `api-key` or an Entra ID bearer token, on the newer `/openai/v1` path or the classic
 * `/openai/deployments/{name}` path with its `api-version`. The wire is OpenAI's; only where it
 * lives and how the caller is known differ, so the OpenAI providers do the talking.
 */
import { ConfigError } from "../../core/errors.js";
import {
  CloudCredentialsError,
  TokenBoundModel,
  type TokenProvider,
} from "../../models/cloud-credentials.js";
import { checkContextWindow } from "../../models/context-window.js";
import type { HttpOptions } from "../../models/http/transport.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { contextWindowOf, priceOf } from "../../models/prices.js";
import { OpenAIChatModel } from "../openai/definition.js";
import { COMPATIBLE_QUIRKS } from "../openai/quirks.js";
import { OpenAIResponsesModel } from "../openai-responses/definition.js";
import { registerProvider } from "../resolve.js";

const PROVIDER = "azure";
const TOKEN_HINT =
  'pass `token` (e.g. getBearerTokenProvider(new DefaultAzureCredential(), "https://cognitiveservices.azure.com/.default") of @azure/identity: npm i @azure/identity)';

/** How to reach an Azure OpenAI deployment. */
export interface AzureOptions {
  /** The resource name (`https://{resource}.openai.azure.com`); default `AZURE_RESOURCE_NAME`. */
  resource?: string;
  /** The resource's endpoint instead, e.g. `https://my-res.openai.azure.com`; default `AZURE_OPENAI_ENDPOINT`. */
  endpoint?: string;
  /** Sent as `api-key`; default `AZURE_OPENAI_API_KEY`, then `AZURE_API_KEY`. */
  apiKey?: string;
  /** Entra ID: a bearer token for each call, instead of a key. */
  token?: TokenProvider;
  /** `chat` (Chat Completions, default) or `responses`. */
  api?: "chat" | "responses";
  /**
   * The classic path `/openai/deployments/{deployment}` with this `api-version` (e.g.
   * `2024-10-21`); unset: the version-less `/openai/v1` path. Default `AZURE_OPENAI_API_VERSION`.
   */
  apiVersion?: string;
  /** The model behind the deployment, for prices and the context window (e.g. `gpt-4o-mini`). */
  baseModel?: string;
  /** Extra headers; they replace ours of the same name, in any case. */
  headers?: Record<string, string>;
  price?: ModelPrice;
  contextWindow?: number;
  http?: HttpOptions;
  /** Where variables are read from; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

/** A deployment of Azure OpenAI. */
export class AzureOpenAIModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  /** Where calls go: the deployment's base URL (no credentials in it). */
  readonly baseURL: string;
  readonly #options: AzureOptions;
  readonly #apiKey: string | undefined;
  readonly #models: TokenBoundModel<Model>;

  constructor(
    readonly deployment: string,
    options: AzureOptions = {},
  ) {
    if (!deployment) throw new ConfigError('Azure deployment name is empty; use e.g. "azure:my-gpt-4o-mini"');
    const env = options.env ?? process.env;
    this.id = `${PROVIDER}:${deployment}`;
    this.#options = options;
    this.#models = new TokenBoundModel(options.token, PROVIDER, TOKEN_HINT, (token) => this.#modelFor(token));
    const endpoint =
      options.endpoint ??
      (env.AZURE_OPENAI_ENDPOINT?.trim() ||
        (() => {
          const resource = options.resource ?? env.AZURE_RESOURCE_NAME?.trim();
          return resource ? `https://${resource}.openai.azure.com` : undefined;
        })());
    if (!endpoint)
      throw new ConfigError(
        `Model "${this.id}" needs the Azure resource: set AZURE_OPENAI_ENDPOINT (https://<resource>.openai.azure.com) or AZURE_RESOURCE_NAME, or pass endpoint`,
      );
    const root = endpoint.replace(/\/+$/, "").replace(/\/openai(?:\/v1)?$/, "");
    const version = options.apiVersion ?? (env.AZURE_OPENAI_API_VERSION?.trim() || undefined);
    this.baseURL = version
      ? `${root}/openai/deployments/${encodeURIComponent(deployment)}?api-version=${encodeURIComponent(version)}`
      : `${root}/openai/v1`;
    this.#apiKey =
      options.apiKey ?? (env.AZURE_OPENAI_API_KEY?.trim() || env.AZURE_API_KEY?.trim() || undefined);
    if (!this.#apiKey && !options.token)
      throw new CloudCredentialsError(
        PROVIDER,
        `Model "${this.id}" needs credentials: set AZURE_OPENAI_API_KEY, pass apiKey, or for Entra ID ${TOKEN_HINT}`,
      );
    const base = options.baseModel ?? deployment;
    const price = options.price ?? priceOf("openai", base);
    if (price) this.price = price;
    const window = options.contextWindow ?? contextWindowOf("openai", base);
    if (window) this.contextWindow = window;
  }

  /** Sends one request through the deployment, with a fresh Entra ID token when one is used. */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    checkContextWindow(this, request);
    return (await this.#models.current()).generate(request, observer);
  }

  /** The OpenAI model that speaks to the deployment; rebuilt only when the token changes. */
  #modelFor(token: string | undefined): Model {
    const o = this.#options;
    // Entra ID's token wins over a key: both set means the user chose the token on purpose.
    const auth: Record<string, string> = token
      ? { authorization: `Bearer ${token}` }
      : { "api-key": this.#apiKey ?? "" };
    const headers = { ...auth, ...o.headers };
    const shared = {
      baseURL: this.baseURL,
      headers,
      ...(this.price && { price: this.price }),
      ...(o.http && { http: o.http }),
    };
    const model: Model =
      o.api === "responses"
        ? new OpenAIResponsesModel(this.deployment, { ...shared, env: {} })
        : new OpenAIChatModel({
            ...shared,
            model: this.deployment,
            provider: PROVIDER,
            // Azure takes OpenAI's fields; its ids and usage streaming are OpenAI's too.
            quirks: { ...COMPATIBLE_QUIRKS, maxTokensField: "max_completion_tokens", fillToolCallIds: false },
          });
    return model;
  }
}

/** An Azure OpenAI deployment, e.g. `azure("my-gpt-4o-mini", { resource: "my-res" })`. */
export const azure = (deployment: string, options?: AzureOptions) =>
  new AzureOpenAIModel(deployment, options);

registerProvider(
  PROVIDER,
  (deployment, env, options) =>
    new AzureOpenAIModel(deployment, { env, ...(options?.http && { http: options.http }) }),
);
