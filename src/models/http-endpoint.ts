/**
 * Where an HTTP provider lives, resolved once per model: the credentials and base URL (options,
 * then environment), the http(s) check, the key a vendor's own API needs, the key headers (the
 * user's win) and the URL as it may be shown. The kit (http-provider.ts) sends every call of the
 * model to the `Connection` this returns.
 */
import { ConfigError } from "../core/errors.js";
import { redact, urlSecrets } from "../core/redact.js";
import { mergeHeaders } from "./http/call.js";

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
