import { ConfigError } from "../core/errors.js";
import { ProviderProtocolError } from "../models/errors.js";
import { type HttpOptions, postJson } from "../models/http/index.js";

/** Turns texts into vectors for similarity search. */
export interface Embedder {
  /** Names the vector space (provider and model); vectors of different ids are never compared. */
  readonly id: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/** Options of {@link OpenAIEmbeddings}. */
export interface OpenAIEmbeddingsOptions {
  /** Default `text-embedding-3-small`. */
  model?: string;
  /** Any OpenAI-compatible server (Ollama, vLLM, LM Studio...). Default `OPENAI_BASE_URL`, else OpenAI. */
  baseURL?: string;
  /** Default `OPENAI_API_KEY`; a local server usually needs none. */
  apiKey?: string;
  /** Ask for shorter vectors (models that support it). */
  dimensions?: number;
  /** Texts per request (default 96). */
  batchSize?: number;
  http?: HttpOptions;
}

interface EmbeddingsBody {
  data?: { embedding?: unknown; index?: unknown }[];
}

/** An embedder that speaks the OpenAI-compatible `POST /embeddings` protocol. */
export class OpenAIEmbeddings implements Embedder {
  readonly id: string;
  readonly #url: string;
  readonly #model: string;
  readonly #apiKey: string | undefined;
  readonly #dimensions: number | undefined;
  readonly #batchSize: number;
  readonly #http: HttpOptions;

  constructor(options: OpenAIEmbeddingsOptions = {}) {
    this.#model = options.model ?? "text-embedding-3-small";
    const base = options.baseURL ?? process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
    this.#url = `${base.replace(/\/+$/, "")}/embeddings`;
    this.#apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
    this.#dimensions = options.dimensions;
    this.#batchSize = options.batchSize ?? 96;
    if (!Number.isInteger(this.#batchSize) || this.#batchSize < 1)
      throw new ConfigError(`OpenAIEmbeddings: batchSize must be a positive whole number`);
    this.#http = options.http ?? {};
    this.id = `openai:${this.#model}${this.#dimensions ? `@${this.#dimensions}` : ""}`;
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.#batchSize) {
      out.push(...(await this.#batch(texts.slice(i, i + this.#batchSize), signal)));
    }
    return out;
  }

  async #batch(input: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const reply = await postJson(
      {
        provider: "embeddings",
        url: this.#url,
        headers: this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {},
        body: { model: this.#model, input, ...(this.#dimensions && { dimensions: this.#dimensions }) },
        signal: signal ?? new AbortController().signal,
        observer: { onRequest: () => {} },
        ...(this.#apiKey && { secrets: [this.#apiKey] }),
      },
      this.#http,
    );
    const data = (reply.body as EmbeddingsBody).data;
    const broken = (why: string) =>
      new ProviderProtocolError(`embeddings: ${why}`, { provider: "embeddings", status: reply.status });
    if (!Array.isArray(data) || data.length !== input.length)
      throw broken(`expected ${input.length} embeddings, got ${Array.isArray(data) ? data.length : "none"}`);
    const vectors: Float32Array[] = new Array(input.length);
    for (const [i, item] of data.entries()) {
      const index = typeof item.index === "number" ? item.index : i;
      if (!Array.isArray(item.embedding) || !item.embedding.every((x) => typeof x === "number"))
        throw broken(`embedding ${index} is not a list of numbers`);
      vectors[index] = Float32Array.from(item.embedding as number[]);
    }
    if (vectors.some((v) => v === undefined))
      throw broken("the indices of the embeddings do not cover the input");
    return vectors;
  }
}
