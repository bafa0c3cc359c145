import { ProviderError } from "../../models/errors.js";
import type { HttpOptions } from "../../models/http/transport.js";
import { endpointUrl } from "../../models/http/url.js";
import { type Connection, connect, type Endpoint, shownUrl } from "../../models/http-endpoint.js";
import { callHttp, type HttpProvider } from "../../models/http-provider.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { contextWindowOf, priceOf } from "../../models/prices.js";
import { OPENAI_QUIRKS, type OpenAIQuirks } from "./quirks.js";
import { failedToolCall, recoveredResponse } from "./recover.js";
import { type ChatSettings, toChatBody } from "./request.js";
import { parseChatCompletion } from "./response.js";
import { ChatStreamAssembler } from "./stream.js";

/** How to reach an OpenAI-compatible Chat Completions endpoint. */
export interface OpenAIChatOptions {
  /** The model name sent as `model`, e.g. `gpt-4o-mini`. */
  model: string;
  /** Everything before `/chat/completions`, e.g. `https://api.openai.com/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …`; never shown in errors or events. */
  apiKey?: string;
  /** Label for `Model.id` (`<provider>:<model>`) and error messages; `openai` by default. */
  provider?: string;
  /** Extra headers (organization, project, referer); they replace ours of the same name, in any case. */
  headers?: Record<string, string>;
  /** Differences from OpenAI's behaviour; unset fields keep OpenAI's. */
  quirks?: Partial<OpenAIQuirks>;
  /** Price per million tokens, for cost and `limits.maxCostUsd`; default: the price table's. */
  price?: ModelPrice;
  /** Context window in tokens; default: the table's. A request known to exceed it is refused before sending. */
  contextWindow?: number;
  /** Sent as `parallel_tool_calls` when tools are offered. */
  parallelToolCalls?: boolean;
  /** Retries and timeouts. */
  http?: HttpOptions;
}

/** A call's settings: what the model adds to the request, and the server's quirks. */
interface ChatCallSettings {
  body: ChatSettings;
  quirks: OpenAIQuirks;
}

/** The Chat Completions protocol: the translation the kit (models/http-provider.ts) calls. */
export const CHAT_COMPLETIONS: HttpProvider<ChatCallSettings> = {
  toBody: (request, { body, quirks }) => toChatBody(request, body, quirks),
  fromBody: (body, { quirks }, provider) => parseChatCompletion(body, provider, quirks),
  stream: ({ quirks }, { provider, observer, deliver }) => {
    const assembler = new ChatStreamAssembler(provider, quirks, {
      onRequest: (wire) => observer.onRequest(wire),
      onDelta: deliver,
    });
    return { push: (event) => assembler.push(event.data, event.event), finish: () => assembler.finish() };
  },
  // The server refused the model's own malformed tool call: hand the call to the loop, whose
  // validation feedback lets the model fix it, instead of failing the run.
  recover(error, { quirks }) {
    if (!quirks.recoverToolUseFailed || !(error instanceof ProviderError) || error.status !== 400) return;
    const failed = failedToolCall(error.body);
    return failed ? recoveredResponse(failed, error.body) : undefined;
  },
};

/** Where a Chat Completions server lives: `<baseURL>/chat/completions`, the key as a bearer token. */
export function chatEndpoint(defaultBaseURL: string, env?: Partial<Endpoint>): Endpoint {
  return {
    defaultBaseURL,
    keyEnv: [],
    ...env,
    url: (base) => endpointUrl(base, "/chat/completions"),
    headers: (apiKey): Record<string, string> => (apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
  };
}

/** A model behind OpenAI's Chat Completions API (OpenAI itself or any compatible server). */
export class OpenAIChatModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  readonly contextWindow?: number;
  /** The provider label, e.g. `openai`, `ollama`. */
  readonly provider: string;
  /** The resolved quirks this model runs with. */
  readonly quirks: Readonly<OpenAIQuirks>;
  readonly #options: OpenAIChatOptions;
  readonly #connection: Connection;
  readonly #settings: ChatCallSettings;

  constructor(options: OpenAIChatOptions) {
    this.#options = options;
    this.provider = options.provider ?? "openai";
    this.id = `${this.provider}:${options.model}`;
    const price = options.price ?? priceOf(this.provider, options.model);
    if (price !== undefined) this.price = price;
    const window = options.contextWindow ?? contextWindowOf(this.provider, options.model);
    if (window !== undefined) this.contextWindow = window;
    this.quirks = { ...OPENAI_QUIRKS, ...options.quirks };
    // Resolved already (a preset read its variables): nothing more from the environment.
    this.#connection = connect(
      this.id,
      this.provider,
      chatEndpoint(options.baseURL),
      {
        ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
        baseURL: options.baseURL,
        ...(options.headers && { headers: options.headers }),
        env: {},
      },
      this.contextWindow,
    );
    this.#settings = {
      body: {
        model: options.model,
        ...(options.parallelToolCalls !== undefined && { parallelToolCalls: options.parallelToolCalls }),
      },
      quirks: this.quirks,
    };
  }

  /** The URL requests go to, with credentials in it (userinfo, `?key=`) redacted. */
  get url(): string {
    return shownUrl(this.#connection);
  }

  /**
   * Sends one Chat Completions request (streamed when `request.stream`) and normalizes the answer.
   * Chat Completions carries no reasoning back (compatible servers' own `reasoning_content` is
   * not resent either: DeepSeek rejects it); another provider's is reported as left out.
   */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    return callHttp(
      CHAT_COMPLETIONS,
      this.#connection,
      this.#settings,
      request,
      observer,
      this.#options.http,
    );
  }
}
