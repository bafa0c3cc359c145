// What a call of the transport is: the options every provider accepts, the POST a provider asks
// for, what comes back, and the route (URL, headers, secrets) it resolves to once per model.

import type { RequestOptions } from "node:http";
import { ConfigError } from "../../core/errors.js";
import { READ_CAPS } from "../../core/read-caps.js";
import { redact, urlSecrets } from "../../core/redact.js";
import type { Stop } from "../../core/stop.js";
import type { ModelObserver } from "../model.js";

/** Transport settings every provider accepts (as its `http` option). */
export interface HttpOptions {
  /** Retry policy; unset fields keep `DEFAULT_RETRY`. `{ maxRetries: 0 }` turns retries off. */
  retry?: Partial<RetryPolicy>;
  /** Time allowed until the response headers (and, without streaming, the whole body) arrive. */
  timeoutMs?: number;
  /** Longest silence allowed between two chunks of a stream. */
  streamIdleTimeoutMs?: number;
  /**
   * Total time one model call may take: every attempt, the waits between them and the whole body
   * or stream (default `DEFAULT_DEADLINE_MS`, 15 minutes). Past it the call ends in a
   * `CallDeadlineError`, however busy the stream still is.
   */
  deadlineMs?: number;
  /** Most bytes one streamed answer may send (default 64 MiB); more is a `ResponseTooLargeError`. */
  maxStreamBytes?: number;
  /** Most bytes of a non-streamed answer (default 8 MiB); more is a `ResponseTooLargeError`. */
  maxResponseBytes?: number;
  /** Most bytes of an error response's body (default 64 KiB); more is a `ResponseTooLargeError`. */
  maxErrorBodyBytes?: number;
  /**
   * The fetch to use. By default calls go over `node:http(s)` (far less CPU per call than fetch),
   * or through Node's global fetch when an undici proxy or mock dispatcher is installed globally
   * or `NODE_USE_ENV_PROXY` is set; pass `fetch` here to route them through fetch anyway.
   */
  fetch?: typeof globalThis.fetch;
}

/** When and how long to wait before trying a failed model call again. */
export interface RetryPolicy {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** Backoff before the first retry; it doubles on each further one. */
  initialDelayMs: number;
  /** Ceiling of the computed backoff. */
  maxDelayMs: number;
  /** Share of the backoff taken off at random (0..1), so clients that failed together spread out. */
  jitter: number;
  /**
   * The longest `Retry-After` honoured. A server that asks for a longer wait gets no retry: the
   * error (a RateLimitError carrying `retryAfterMs`) goes to the caller, who can decide.
   */
  maxRetryAfterMs: number;
}

/** Defaults: 2 retries, 0.5 s then 1 s (minus up to 25 % jitter), `Retry-After` honoured up to 60 s. */
export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  jitter: 0.25,
  maxRetryAfterMs: 60_000,
});
/** Default request timeout: 10 minutes, for long non-streamed generations. */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** Default stream idle timeout: 2 minutes without a byte. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;
/** Default total deadline of one model call: 15 minutes, retries and the whole stream included. */
export const DEFAULT_DEADLINE_MS = 900_000;
/** Default cap on one streamed answer: 64 MiB (a 128k-token answer is about 30 MB of SSE). */
export const DEFAULT_MAX_STREAM_BYTES: number = READ_CAPS.providerStream;
/** Default cap on a non-streamed answer: 8 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES: number = READ_CAPS.providerBody;
/** Default cap on an error body: 64 KiB (only its first 500 characters are ever shown). */
export const DEFAULT_MAX_ERROR_BODY_BYTES: number = READ_CAPS.providerErrorBody;

/** `HttpOptions` with every default filled in: worked out once per options object (a model passes the same one each call). */
export type Settings = Required<Omit<HttpOptions, "retry" | "fetch">> & { retry: RetryPolicy };
const settingsCache = new WeakMap<HttpOptions, Settings>();

/** The settings of `options`. */
export function settingsOf(options: HttpOptions): Settings {
  let settings = settingsCache.get(options);
  if (settings === undefined) {
    settings = {
      retry: { ...DEFAULT_RETRY, ...options.retry },
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
      deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
      maxStreamBytes: options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      maxErrorBodyBytes: options.maxErrorBodyBytes ?? DEFAULT_MAX_ERROR_BODY_BYTES,
    };
    settingsCache.set(options, settings);
  }
  return settings;
}

/** One JSON POST a provider wants made. */
export interface HttpCall {
  /** Label used in error messages, e.g. `openai`. */
  provider: string;
  url: string;
  /**
   * Request headers, secrets included; `accept` and `content-type: application/json` are added
   * unless present in any letter case (see `mergeHeaders`). Resolved once per object: do not
   * change it in place once used.
   */
  headers: Record<string, string>;
  /**
   * The JSON body. It is serialized once, and this same object is what `observer.onRequest`
   * receives on every attempt, so the event shows exactly the bytes sent. Do not mutate it later.
   */
  body: unknown;
  /**
   * What stops the call, one of the two: the caller's `signal`, or a `stop` (a provider of
   * glassloop's own passes `stopOf(request)`: the run's stop, whose signal is made only if read).
   */
  signal?: AbortSignal;
  stop?: Stop;
  observer: ModelObserver;
  /** Values (API keys) that must never appear in an error, event or log. */
  secrets?: readonly string[];
}

/** A successful JSON response. */
export interface JsonReply {
  status: number;
  headers: Headers;
  body: unknown;
}

/** How an event stream ended: `complete` when the handler saw its protocol's end marker. */
export interface StreamEnd {
  complete: boolean;
  headers: Headers;
}

/**
 * Request headers from several sources, merged by name ignoring letter case. Later layers win,
 * and each name is sent once, lower-cased: `Authorization` from the user and `authorization` from
 * the environment's key must not both go out, joined with a comma (gateways reject that).
 */
export function mergeHeaders(
  ...layers: readonly (Readonly<Record<string, string | undefined>> | undefined | false)[]
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const [name, value] of Object.entries(layer)) {
      if (value !== undefined) merged[name.toLowerCase()] = value;
    }
  }
  return merged;
}

/** Node's request options for a route (node-exchange.ts makes them): parsed and merged once, the body's length filled in per request. */
export interface NodeTarget {
  /** Everything but the headers, which each request sets before node copies the options. */
  options: RequestOptions;
  /**
   * The headers as name/value pairs, `host` first and `content-length` last: a list skips node's
   * per-header bookkeeping (`setHeader` for each, an object of them), and is checked as written.
   */
  pairs: string[];
  request: typeof import("node:http").request;
}

/** Where a call goes and what it sends, as every call with the same URL, headers and secrets does. */
export interface Route {
  /** The URL requests go to, without its userinfo (fetch refuses URLs with credentials). */
  url: string;
  /** The URL as events and errors show it. */
  shownUrl: string;
  /** The request headers: the caller's over `accept` and `content-type`, the userinfo as `Basic` credentials. */
  headers: Record<string, string>;
  /** The call's secrets and the credentials inside its URL: never shown, never in an error. */
  secrets: readonly string[];
  /** The secrets the call gave, to tell whether a later call's are the same. */
  given: readonly string[];
  /** What the node:http path derives from the rest, filled in by it on first use. */
  node?: NodeTarget;
}

// A model sends every call to the same URL with the same headers object and secrets: parsing and
// redacting the URL and merging the headers anew (two URL parses, a redactor, a merge) showed in
// the profile. One map per kind of answer, per headers object; bounded per object.
const jsonRoutes = new WeakMap<object, Map<string, Route>>();
const eventRoutes = new WeakMap<object, Map<string, Route>>();
const MAX_ROUTES = 64;
const NONE: readonly string[] = [];

/** The route of `call`, for a JSON answer or an event stream. */
export function routeOf(call: HttpCall, events: boolean): Route {
  const cache = events ? eventRoutes : jsonRoutes;
  let byUrl = cache.get(call.headers);
  const given = call.secrets ?? NONE;
  const found = byUrl?.get(call.url);
  if (found !== undefined && (found.given === given || sameStrings(found.given, given))) return found;
  const route = resolve(call, events ? "text/event-stream" : "application/json", given);
  if (byUrl === undefined || byUrl.size >= MAX_ROUTES) {
    byUrl = new Map();
    cache.set(call.headers, byUrl);
  }
  byUrl.set(call.url, route);
  return route;
}

function resolve(call: HttpCall, accept: string, given: readonly string[]): Route {
  const inUrl = urlSecrets(call.url);
  const secrets = inUrl.length === 0 ? given : [...given, ...inUrl];
  const shownUrl = redact(call.url, secrets);
  // The caller's headers win over these defaults; see mergeHeaders.
  const headers = mergeHeaders({ accept, "content-type": "application/json" }, call.headers);
  if (!URL.canParse(call.url)) return { url: call.url, shownUrl, headers, secrets, given };
  const parsed = new URL(call.url);
  if (!parsed.username && !parsed.password) return { url: call.url, shownUrl, headers, secrets, given };
  // The userinfo (`https://user:pass@host`) becomes `Basic` credentials, as curl does: fetch
  // refuses such URLs (and its error quotes them whole), and nothing should see the password again.
  if (headers.authorization !== undefined)
    throw new ConfigError(
      `${call.provider}: the base URL ${redact(shownUrl, [])} has credentials and an API key is set too; give one of them`,
    );
  const user = decodeURIComponent(parsed.username);
  const pass = decodeURIComponent(parsed.password);
  parsed.username = "";
  parsed.password = "";
  headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
  return { url: parsed.href, shownUrl, headers, secrets, given };
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What the transport needs of an HTTP answer, whichever client fetched it: the status, a header,
 * the body fed chunk by chunk. Over `node:http` the `IncomingMessage` is read directly; a web
 * `Response` (from a `fetch`) is read through its body stream.
 */
export interface WireReply {
  readonly status: number;
  /** One header's value by its lower-case name; repeated headers joined with `, `. */
  header(name: string): string | undefined;
  /** Every header, as a web `Headers` (built on first use: only errors and replies that ask need it). */
  readonly headers: Headers;
  /**
   * Feeds the body to `onChunk`, chunk by chunk, and resolves once it ended. What `onChunk` throws
   * ends the reading with that error and drops the connection. When `onChunk` returns `true` the
   * rest is not wanted: the reading waits one turn of the event loop at most for the body's end
   * (which lets the connection be reused; the end marker is usually the last thing sent), then
   * drops the connection and resolves.
   */
  read(onChunk: (chunk: Uint8Array) => boolean | undefined): Promise<void>;
  /** Drops the body unread (and with it the connection). */
  cancel(): void;
}

/** One request in flight: its answer once the headers are in, and the one way to end it early. */
export interface Exchange {
  readonly reply: Promise<WireReply>;
  /** Ends the request with `reason`, dropping the connection: the `reply` (or, later, `read`) rejects with it. */
  abort(reason: unknown): void;
}

/** Starts one POST of a serialized body along a route. */
export type Exchanger = (route: Route, body: string) => Exchange;
