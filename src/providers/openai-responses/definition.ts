import { ConfigError } from "../../core/errors.js";
import { once } from "../../core/once.js";
import type { Message } from "../../core/vocabulary/messages.js";
import type { HttpOptions } from "../../models/http/call.js";
import { endpointUrl } from "../../models/http/url.js";
import { type Connection, connect, type Endpoint, shownUrl } from "../../models/http-endpoint.js";
import { callHttp, type HttpProvider } from "../../models/http-provider.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { contextWindowOf, priceOf } from "../../models/prices.js";
import type { ResponsesBodyOptions } from "./request.js";
import { RESPONSES_PROVIDER } from "./wire.js";

/** Where the Responses API lives unless `baseURL` or `OPENAI_BASE_URL` says otherwise. */
export const OPENAI_RESPONSES_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Options of a model behind the OpenAI Responses API. */
export interface OpenAIResponsesOptions {
  /** Sent as `Authorization: Bearer …`; `OPENAI_API_KEY` when unset (required for OpenAI's own API). */
  apiKey?: string;
  /** Everything before `/responses`; `OPENAI_BASE_URL` when unset, else `https://api.openai.com/v1`. */
  baseURL?: string;
  /** Extra headers; they replace ours of the same name in any letter case. */
  headers?: Record<string, string>;
  /** Price per million tokens; the price table's `openai:<model>` entry by default. */
  price?: ModelPrice;
  /** Context window in tokens; default: the table's. A request known to exceed it is refused before sending. */
  contextWindow?: number;
  /** Reasoning models: `effort` and `summary` as the API takes them, e.g. `{ effort: "low", summary: "auto" }`. */
  reasoning?: { effort?: "minimal" | "low" | "medium" | "high"; summary?: "auto" | "concise" | "detailed" };
  /** Sent as `parallel_tool_calls` when tools are offered. */
  parallelToolCalls?: boolean;
  /**
   * `"stateless"` (default): `store: false`, the whole history every call, reasoning carried back
   * as encrypted content. `"previous_response_id"`: `store: true`, and a call that continues this
   * model's last answer sends only the new items with `previous_response_id` (see docs/providers.md).
   */
  state?: "stateless" | "previous_response_id";
  /** Retries, timeouts, and the fetch to use. */
  http?: HttpOptions;
  /** Where the key and base URL come from when unset (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** Where the Responses API lives: `<baseURL>/responses`, the key as a bearer token. */
export const RESPONSES_ENDPOINT: Endpoint = {
  defaultBaseURL: OPENAI_RESPONSES_DEFAULT_BASE_URL,
  baseURLEnv: "OPENAI_BASE_URL",
  keyEnv: ["OPENAI_API_KEY"],
  // The one endpoint rule of every provider: path appended, the base URL's query kept after it.
  url: (base) => endpointUrl(base, "/responses"),
  headers: (apiKey): Record<string, string> =>
    apiKey !== undefined ? { authorization: `Bearer ${apiKey}` } : {},
};

/** The Responses protocol (request, answer and stream translation), imported on the first call. */
export const RESPONSES: () => Promise<HttpProvider<ResponsesBodyOptions>> = once(() =>
  import("./protocol.js").then((m) => m.RESPONSES),
);

/**
 * A model behind OpenAI's Responses API (`POST /v1/responses`), streamed (typed `event:` SSE) or
 * not. Reasoning items come back as reasoning parts and go back, encrypted, on the next turn.
 */
export class OpenAIResponsesModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  readonly #connection: Connection;
  readonly #options: OpenAIResponsesOptions;
  // previous_response_id mode: the response id of each answer this model gave, by the answer's key.
  readonly #responseIds = new Map<string, string>();

  /** The URL requests go to, with credentials in it (userinfo, `?key=`) redacted. */
  get url(): string {
    return shownUrl(this.#connection);
  }

  constructor(
    readonly modelName: string,
    options: OpenAIResponsesOptions = {},
  ) {
    if (!modelName)
      throw new ConfigError('OpenAI Responses model name is empty; use e.g. "openai-responses:gpt-5"');
    this.id = `openai-responses:${modelName}`;
    const window = options.contextWindow ?? contextWindowOf("openai", modelName);
    if (window !== undefined) this.contextWindow = window;
    this.#connection = connect(this.id, RESPONSES_PROVIDER, RESPONSES_ENDPOINT, options, window);
    this.#options = options;
    const price = options.price ?? priceOf("openai", modelName);
    if (price) this.price = price;
  }

  /** Sends one Responses request and normalizes the answer. */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const chained = this.#options.state === "previous_response_id";
    const previous = chained ? this.#previousOf(request.messages) : undefined;
    const settings: ResponsesBodyOptions = {
      model: this.modelName,
      store: chained,
      ...(this.#options.reasoning && { reasoning: this.#options.reasoning }),
      ...(this.#options.parallelToolCalls !== undefined && {
        parallelToolCalls: this.#options.parallelToolCalls,
      }),
      ...(previous && { previous }),
    };
    const response = await callHttp(
      await RESPONSES(),
      this.#connection,
      settings,
      request,
      observer,
      this.#options.http,
    );
    if (chained) this.#remember(response);
    return response;
  }

  #remember(response: ModelResponse): void {
    const id = (response.raw as { id?: unknown } | undefined)?.id;
    if (typeof id !== "string") return;
    this.#responseIds.set(
      answerKey(
        response.text,
        response.toolCalls.map((c) => c.id),
      ),
      id,
    );
  }

  /** The stored response the last assistant message of `messages` is, and where it sits. */
  #previousOf(messages: readonly Message[]): { responseId: string; afterIndex: number } | undefined {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i] as Message;
      if (m.role !== "assistant") continue;
      const id = this.#responseIds.get(
        answerKey(
          m.content,
          (m.toolCalls ?? []).map((c) => c.id),
        ),
      );
      return id === undefined ? undefined : { responseId: id, afterIndex: i };
    }
    return undefined;
  }
}

function answerKey(text: string, callIds: string[]): string {
  return JSON.stringify([text, callIds]);
}
