/**
 * Gemini on Google Vertex AI: the same generateContent wire as the Gemini API, at a project's
 * regional endpoint (`{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/google`),
 * authorized by an OAuth access token from a token provider (a service account or application
 * default credentials through google-auth-library), or by an express-mode API key.
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
import { GeminiModel, type GeminiOptions } from "../google/definition.js";

const PROVIDER = "vertex";
const TOKEN_HINT =
  'pass `token` (e.g. () => new GoogleAuth({ scopes: "https://www.googleapis.com/auth/cloud-platform" }).getAccessToken() of google-auth-library: npm i google-auth-library), or GOOGLE_VERTEX_API_KEY for express mode';

/** How to reach Gemini on Vertex AI. */
export interface VertexOptions {
  /** Google Cloud project; default `GOOGLE_CLOUD_PROJECT` (or `GCLOUD_PROJECT`). */
  project?: string;
  /** Region, e.g. `us-central1`, or `global`; default `GOOGLE_CLOUD_LOCATION`, else `us-central1`. */
  location?: string;
  /** An OAuth access token for each call (service account, application default credentials). */
  token?: TokenProvider;
  /** Vertex express mode: an API key instead of a token; default `GOOGLE_VERTEX_API_KEY`. */
  apiKey?: string;
  /** Another endpoint (a private one, a proxy, a test server): everything before `/models/…`. */
  baseURL?: string;
  headers?: Record<string, string>;
  thinking?: GeminiOptions["thinking"];
  price?: ModelPrice;
  contextWindow?: number;
  http?: HttpOptions;
  /** Where variables are read from; `process.env` by default. */
  env?: NodeJS.ProcessEnv;
}

/**
 * A project's regional endpoint, `https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}`
 * (`aiplatform.googleapis.com` for `global`), from the options, else `GOOGLE_CLOUD_PROJECT` and
 * `GOOGLE_CLOUD_LOCATION` (default `us-central1`).
 */
export function vertexLocationURL(
  id: string,
  options: Pick<VertexOptions, "project" | "location">,
  env: NodeJS.ProcessEnv,
  defaultLocation = "us-central1",
): string {
  const project = options.project ?? (env.GOOGLE_CLOUD_PROJECT?.trim() || env.GCLOUD_PROJECT?.trim());
  if (!project)
    throw new ConfigError(
      `Model "${id}" needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT or pass project`,
    );
  const location = options.location ?? (env.GOOGLE_CLOUD_LOCATION?.trim() || defaultLocation);
  const host = location === "global" ? "aiplatform.googleapis.com" : `${location}-aiplatform.googleapis.com`;
  return `https://${host}/v1/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(location)}`;
}

/** A Gemini model on Vertex AI. */
export class VertexGeminiModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  /** Everything before `/models/…`. */
  readonly baseURL: string;
  readonly #options: VertexOptions;
  readonly #apiKey: string | undefined;
  readonly #models: TokenBoundModel<GeminiModel>;

  constructor(
    readonly modelName: string,
    options: VertexOptions = {},
  ) {
    if (!modelName) throw new ConfigError('Vertex model name is empty; use e.g. "vertex:gemini-2.5-flash"');
    const env = options.env ?? process.env;
    this.id = `${PROVIDER}:${modelName}`;
    this.#options = options;
    this.#models = new TokenBoundModel(options.token, PROVIDER, TOKEN_HINT, (token) => this.#modelFor(token));
    this.#apiKey = options.apiKey ?? (env.GOOGLE_VERTEX_API_KEY?.trim() || undefined);
    if (options.baseURL) this.baseURL = options.baseURL;
    else if (this.#apiKey && !options.project && !env.GOOGLE_CLOUD_PROJECT?.trim())
      // Express mode needs no project: the key names it.
      this.baseURL = "https://aiplatform.googleapis.com/v1/publishers/google";
    else this.baseURL = `${vertexLocationURL(this.id, options, env)}/publishers/google`;
    if (!options.token && !this.#apiKey)
      throw new CloudCredentialsError(PROVIDER, `Model "${this.id}" needs credentials: ${TOKEN_HINT}`);
    const price = options.price ?? priceOf("google", modelName);
    if (price) this.price = price;
    const window = options.contextWindow ?? contextWindowOf("google", modelName);
    if (window) this.contextWindow = window;
  }

  /** Sends one request with a fresh access token (when a token provider is used). */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    checkContextWindow(this, request);
    return (await this.#models.current()).generate(request, observer);
  }

  /** The input tokens of `request` by Vertex AI's count endpoint (`:countTokens`), with a fresh token. */
  async countTokens(request: ModelRequest): Promise<number> {
    return (await this.#models.current()).countTokens(request);
  }

  #modelFor(token: string | undefined): GeminiModel {
    const o = this.#options;
    const model = new GeminiModel(this.modelName, {
      baseURL: this.baseURL,
      api: "vertex",
      // The Gemini API's own key variables are never read here: they belong to another service.
      env: {},
      ...(token
        ? { headers: { authorization: `Bearer ${token}`, ...o.headers } }
        : { apiKey: this.#apiKey ?? "" }),
      ...(!token && o.headers && { headers: o.headers }),
      ...(o.thinking && { thinking: o.thinking }),
      ...(this.price && { price: this.price }),
      ...(o.http && { http: o.http }),
    });
    return model;
  }
}

/** Gemini on Vertex AI, e.g. `vertex("gemini-2.5-flash", { project: "my-proj", token })`. */
export const vertex = (model: string, options?: VertexOptions) => new VertexGeminiModel(model, options);
