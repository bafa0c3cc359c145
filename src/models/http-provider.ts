/**
 * The provider kit: what every HTTP provider shares, written once. A provider supplies its
 * translation (`HttpProvider`: the request body, the answer's body, a stream's events) and where
 * it lives (`Endpoint`); the kit owns the credentials and base URL (options, then environment),
 * the http(s) check, the redacted URL, the key headers, the call with its retries, deadline and
 * caps (models/http), and the assembler each streamed attempt starts afresh.
 */
import { ConfigError } from "../core/errors.js";
import { redact, urlSecrets } from "../core/redact.js";
import { checkContextWindow } from "./context-window.js";
import { mergeHeaders } from "./http/headers.js";
import type { SseEvent } from "./http/sse.js";
import { type HttpCall, type HttpOptions, postEvents, postJson } from "./http/transport.js";
import type { ModelDelta, ModelObserver, ModelRequest, ModelResponse } from "./model.js";
import { reportForeignReasoning } from "./reasoning.js";

/** Where a provider lives and how its key travels: the data of a provider or an OpenAI-compatible preset. */
export interface Endpoint {
  /** Used when neither the `baseURL` option nor `baseURLEnv` says otherwise. */
  defaultBaseURL: string;
  /** Environment variable that replaces the default base URL. */
  baseURLEnv?: string;
  /** Turns the `baseURLEnv` value into a base URL (Ollama's variable holds a bare host). */
  baseURLFromEnv?: (value: string) => string;
  /**
   * Environment variables holding the key, the first set one wins. With any, a key is required
   * while the base URL is the default one (the vendor's own API); a server elsewhere may need none.
   */
  keyEnv: readonly string[];
  /** The URL of a call from the base URL (the stream's URL when `stream` and it differs). */
  url(baseURL: string, stream: boolean): string;
  /** The headers that carry the key (and the protocol's own, e.g. a version). */
  headers(apiKey: string | undefined): Record<string, string>;
}

/** What a user may pass to any HTTP provider about where it lives. */
export interface EndpointOptions {
  apiKey?: string;
  baseURL?: string;
  /** Extra headers; they replace ours of the same name, in any letter case. */
  headers?: Record<string, string>;
  /** Where the key and base URL come from when unset (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** A model's resolved endpoint: what every call of it sends to where. */
export interface Connection {
  /** The model's id (`provider:model`), as errors name it. */
  id: string;
  /** The provider label events and errors name, e.g. `openai`, `ollama`. */
  provider: string;
  /** The model's context window in tokens: a request known not to fit is refused before sending. */
  contextWindow?: number;
  url: string;
  streamUrl: string;
  headers: Record<string, string>;
  /** The key and the credentials inside the base URL: never shown. */
  secrets: readonly string[];
}

/** The key and base URL of a model: the options', else the environment's, else the default URL. */
export function credentialsOf(
  endpoint: Endpoint,
  options: EndpointOptions,
): { apiKey: string | undefined; baseURL: string } {
  const env = options.env ?? process.env;
  const fromEnv = endpoint.baseURLEnv ? env[endpoint.baseURLEnv]?.trim() : undefined;
  const baseURL =
    options.baseURL ??
    (fromEnv
      ? endpoint.baseURLFromEnv
        ? endpoint.baseURLFromEnv(fromEnv)
        : fromEnv
      : endpoint.defaultBaseURL);
  let apiKey = options.apiKey || undefined;
  for (const name of endpoint.keyEnv) apiKey ||= env[name]?.trim() || undefined;
  return { apiKey, baseURL };
}

/**
 * Resolves a model's endpoint once, at construction: the credentials, the http(s) check (a typo
 * is one clear message instead of a network error retried twice), the key a vendor's own API
 * needs, the headers (the user's win, in any letter case: one precedence for every provider).
 * With `contextWindow`, every call is checked against it before sending (`callHttp`).
 */
export function connect(
  id: string,
  provider: string,
  endpoint: Endpoint,
  options: EndpointOptions,
  contextWindow?: number,
): Connection {
  const { apiKey, baseURL } = credentialsOf(endpoint, options);
  const secrets = [...(apiKey ? [apiKey] : []), ...urlSecrets(baseURL)];
  const url = endpoint.url(baseURL, false);
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new ConfigError(`Model "${id}": baseURL "${redact(baseURL, secrets)}" is not an http(s) URL`);
  requireKey(id, endpoint, apiKey, baseURL);
  return {
    id,
    provider,
    ...(contextWindow !== undefined && { contextWindow }),
    url,
    streamUrl: endpoint.url(baseURL, true),
    headers: mergeHeaders(endpoint.headers(apiKey), options.headers),
    secrets,
  };
}

/**
 * Refuses a model without a key where its endpoint needs one: the vendor's own API (the default
 * base URL) with key variables to read; a compatible server elsewhere may need none.
 */
export function requireKey(
  id: string,
  endpoint: Endpoint,
  apiKey: string | undefined,
  baseURL: string,
): void {
  const [first, ...others] = endpoint.keyEnv;
  if (first === undefined || apiKey) return;
  if (endpoint.url(baseURL, false) !== endpoint.url(endpoint.defaultBaseURL, false)) return;
  const or = others.length > 0 ? ` (or ${others.join(", ")})` : "";
  throw new ConfigError(
    `Model "${id}" needs an API key: set ${first}${or} in the environment (in code, the apiKey option also works)`,
  );
}

/** A connection's URL as it may be shown: credentials in it (userinfo, `?key=`) redacted. */
export function shownUrl(connection: Connection): string {
  return redact(connection.url, connection.secrets);
}

/** Builds one streamed answer from the events of one attempt. */
export interface StreamAssembler {
  /** Feeds one event; true once the protocol's end marker came (nothing more is read). */
  push(event: SseEvent): boolean | undefined;
  /** The answer; a stream that ended before its end marker is reported as cut off. */
  finish(): ModelResponse;
}

/** What a stream assembler may need besides its settings. */
export interface StreamContext {
  provider: string;
  secrets: readonly string[];
  observer: ModelObserver;
  /** Passes a text or tool-call delta on to the caller. */
  deliver: (delta: ModelDelta) => void;
}

/** One wire protocol: the translation between glassloop's vocabulary and its JSON. `S`: a call's settings. */
export interface HttpProvider<S> {
  /** Builds the JSON body of a request (the exact object the `model_request` event shows). */
  toBody(request: ModelRequest, settings: S): unknown;
  /** Reads a non-streamed answer's body. */
  fromBody(body: unknown, settings: S, provider: string): ModelResponse;
  /** A fresh assembler for one streamed attempt. */
  stream(settings: S, context: StreamContext): StreamAssembler;
  /** Turns a failed call into an answer where the protocol allows it (a server refusing a malformed tool call). */
  recover?(error: unknown, settings: S): ModelResponse | undefined;
}

/**
 * One model call over HTTP: refuse a request known not to fit the context window (nothing is
 * sent), report reasoning the protocol cannot carry, build the body, POST it (retried, bounded,
 * redacted by models/http), and read the answer, streamed or not.
 */
export async function callHttp<S>(
  wire: HttpProvider<S>,
  connection: Connection,
  settings: S,
  request: ModelRequest,
  observer: ModelObserver,
  http: HttpOptions = {},
): Promise<ModelResponse> {
  checkContextWindow(connection, request);
  const { provider } = connection;
  reportForeignReasoning(request.messages, provider, observer);
  const call: HttpCall = {
    provider,
    url: request.stream ? connection.streamUrl : connection.url,
    headers: connection.headers,
    body: wire.toBody(request, settings),
    signal: request.signal,
    observer,
    secrets: connection.secrets,
  };
  try {
    if (!request.stream) return wire.fromBody((await postJson(call, http)).body, settings, provider);
    // The transport may retry until a delta reached the caller; each attempt assembles afresh.
    // Set by the first attempt, which has run once postEvents resolves.
    let assembler!: StreamAssembler;
    await postEvents(
      call,
      (deliver) => {
        const current = wire.stream(settings, { provider, secrets: connection.secrets, observer, deliver });
        assembler = current;
        return (event) => current.push(event);
      },
      http,
    );
    return flattened(assembler.finish());
  } catch (error) {
    const recovered = wire.recover?.(error, settings);
    if (recovered) return recovered;
    throw error;
  }
}

/**
 * A streamed answer's text is built by appending its deltas, and V8 keeps such a string as a tree
 * of every piece (half again the text's size, for 100-character deltas) until something flattens
 * it. Flattened here, once per answer: no delta outlives the step. Converting to a number is what
 * flattens a string in V8; the result is kept so that no compiler drops the conversion.
 */
function flattened(response: ModelResponse): ModelResponse {
  if (response.text.length >= FLATTEN_FROM) flattenedLast.value = Number(response.text);
  for (const call of response.toolCalls)
    if (call.arguments.length >= FLATTEN_FROM) flattenedLast.value = Number(call.arguments);
  return response;
}
const FLATTEN_FROM = 4096;
// Written by `flattened` only so that its conversions count as used; never read.
const flattenedLast = { value: 0 };
