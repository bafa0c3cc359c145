import { ConfigError } from "../../core/errors.js";
import { redact, urlSecrets } from "../../core/redact.js";
import { ProviderError } from "../../models/errors.js";
import { mergeHeaders } from "../../models/http/headers.js";
import { type HttpCall, type HttpOptions, postEvents, postJson } from "../../models/http/transport.js";
import { endpointUrl } from "../../models/http/url.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { priceOf } from "../../models/prices.js";
import { reportForeignReasoning } from "../../models/reasoning.js";
import { OPENAI_QUIRKS, type OpenAIQuirks } from "./quirks.js";
import { toChatBody } from "./request.js";
import { failedToolCall, parseChatCompletion, recoveredResponse } from "./response.js";
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
  /** Sent as `parallel_tool_calls` when tools are offered. */
  parallelToolCalls?: boolean;
  /** Retries and timeouts. */
  http?: HttpOptions;
}

/** A model behind OpenAI's Chat Completions API (OpenAI itself or any compatible server). */
export class OpenAIChatModel implements Model {
  readonly id: string;
  readonly price?: ModelPrice;
  /** The provider label, e.g. `openai`, `ollama`. */
  readonly provider: string;
  /** The resolved quirks this model runs with. */
  readonly quirks: Readonly<OpenAIQuirks>;
  readonly #options: OpenAIChatOptions;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #secrets: string[];

  constructor(options: OpenAIChatOptions) {
    this.#options = options;
    this.provider = options.provider ?? "openai";
    this.id = `${this.provider}:${options.model}`;
    const price = options.price ?? priceOf(this.provider, options.model);
    if (price !== undefined) this.price = price;
    this.quirks = { ...OPENAI_QUIRKS, ...options.quirks };
    this.#url = endpointUrl(options.baseURL, "/chat/completions");
    if (!URL.canParse(this.#url) || !/^https?:$/.test(new URL(this.#url).protocol)) {
      // Caught here, a typo is one clear message instead of a network error retried twice.
      throw new ConfigError(
        `Model "${this.id}": baseURL "${redact(options.baseURL, this.#secretsOf(options))}" is not an http(s) URL, e.g. "http://127.0.0.1:8080/v1"`,
      );
    }
    // The user's headers win, whatever their letter case: a gateway's own Authorization replaces
    // the key's (one documented precedence for every provider, docs/providers.md).
    this.#headers = mergeHeaders(
      options.apiKey !== undefined && options.apiKey !== "" && { authorization: `Bearer ${options.apiKey}` },
      options.headers,
    );
    this.#secrets = this.#secretsOf(options);
  }

  #secretsOf(options: OpenAIChatOptions): string[] {
    return [...(options.apiKey ? [options.apiKey] : []), ...urlSecrets(options.baseURL)];
  }

  /** Sends one Chat Completions request (streamed when `request.stream`) and normalizes the answer. */
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const { provider, quirks } = this;
    // Chat Completions carries no reasoning back (compatible servers' own `reasoning_content` is
    // not resent either: DeepSeek rejects it); another provider's is reported as left out.
    reportForeignReasoning(request.messages, provider, observer);
    const body = toChatBody(
      request,
      {
        model: this.#options.model,
        ...(this.#options.parallelToolCalls !== undefined && {
          parallelToolCalls: this.#options.parallelToolCalls,
        }),
      },
      quirks,
    );
    const call: HttpCall = {
      provider,
      url: this.#url,
      headers: this.#headers,
      body,
      signal: request.signal,
      observer,
      secrets: this.#secrets,
    };
    try {
      if (!request.stream) {
        const reply = await postJson(call, this.#options.http);
        return parseChatCompletion(reply.body, provider, quirks);
      }
      // The transport may retry until a delta reached the caller; each attempt assembles afresh.
      // Set by the first attempt, which has run once postEvents resolves.
      let assembler!: ChatStreamAssembler;
      await postEvents(
        call,
        (deliver) => {
          const current = new ChatStreamAssembler(provider, quirks, {
            onRequest: (wire) => observer.onRequest(wire),
            onDelta: deliver,
          });
          assembler = current;
          return (event) => current.push(event.data, event.event);
        },
        this.#options.http,
      );
      return assembler.finish();
    } catch (error) {
      // The server refused the model's own malformed tool call: hand the call to the loop, whose
      // validation feedback lets the model fix it, instead of failing the run.
      if (quirks.recoverToolUseFailed && error instanceof ProviderError && error.status === 400) {
        const failed = failedToolCall(error.body);
        if (failed) return recoveredResponse(failed, error.body);
      }
      throw error;
    }
  }
}
