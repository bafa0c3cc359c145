import { redact, urlSecrets } from "../../core/redact.js";
import {
  CallDeadlineError,
  errorFields,
  errorForStatus,
  ProviderProtocolError,
  ResponseTooLargeError,
} from "../errors.js";
import type { ModelDelta } from "../model.js";
import { Attempt, Failure } from "./attempt.js";
import {
  type Bounds,
  boundsOf,
  type HttpCall,
  type HttpOptions,
  type JsonReply,
  mergeHeaders,
  type StreamEnd,
} from "./call.js";
import { excerptOf, failureOf, parseOrUndefined, scrub } from "./failure.js";
import { exchangerOf } from "./node-post.js";
import { type Exchange, type Exchanger, readCapped, type WireReply } from "./reply.js";
import { DEFAULT_RETRY, type RetryPolicy, sleep } from "./retry.js";
import { readBodyEvents, SseFormatError, type SseHandler } from "./sse.js";
import { splitUserinfo, type UrlTarget, withBasicAuth } from "./url.js";

export {
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type HttpCall,
  type HttpOptions,
  type JsonReply,
  type StreamEnd,
} from "./call.js";

/** POSTs `call.body` and returns the parsed JSON answer, with retries, timeouts and typed errors. */
export function postJson(given: HttpCall, options: HttpOptions = NO_OPTIONS): Promise<JsonReply> {
  const call = withUrlSecrets(given);
  return send(call, options, "application/json", async (response, attempt, bounds) => {
    const text = await readCapped(response, bounds.maxResponseBytes, "body", call.provider);
    attempt.requestDone();
    try {
      const body = JSON.parse(text) as unknown;
      return {
        status: response.status,
        // Built when asked for: most callers read only the body.
        get headers() {
          return response.headers;
        },
        body,
      };
    } catch (cause) {
      throw new ProviderProtocolError(
        `${call.provider} sent a response that is not JSON`,
        { provider: call.provider, status: response.status, excerpt: excerptOf(text, call) },
        { cause },
      );
    }
  });
}

/**
 * Makes the event handler for one attempt. Each attempt gets a fresh one, so state a failed
 * attempt built up is dropped. The handler passes its text and tool-call deltas to `deliver`, which
 * forwards them to `call.observer.onDelta`.
 */
export type StreamHandlerFactory = (deliver: (delta: ModelDelta) => void) => SseHandler;

/**
 * POSTs `call.body` and feeds the server-sent events of the answer to a handler from `open`. Until
 * the first delta has been delivered a failure is retried like any other (a retryable error event
 * included); after it, never (the caller has already shown part of the answer), and a break ends
 * in a typed error.
 */
export function postEvents(
  given: HttpCall,
  open: StreamHandlerFactory,
  options: HttpOptions = NO_OPTIONS,
): Promise<StreamEnd> {
  const call = withUrlSecrets(given);
  return send(call, options, "text/event-stream", async (response, attempt, bounds) => {
    const type = response.header("content-type") ?? "";
    if (type.includes("application/json")) {
      // The server answered the streaming request with one JSON body: an error, or no streaming.
      const text = await readCapped(response, bounds.maxResponseBytes, "body", call.provider);
      const body = parseOrUndefined(redact(text, call.secrets ?? []));
      const init = { provider: call.provider, status: response.status, excerpt: excerptOf(text, call), body };
      const fields = errorFields(body);
      if (fields.message !== undefined) throw errorForStatus({ ...init, status: response.status });
      throw new ProviderProtocolError(`${call.provider} answered a streaming request without a stream`, init);
    }
    if (response.status === 204 || response.status === 205)
      throw new ProviderProtocolError(`${call.provider} sent an empty stream`, { provider: call.provider });
    attempt.streaming();
    const onEvent = open((delta) => {
      attempt.delivered();
      call.observer.onDelta?.(delta);
    });
    let received = 0;
    const onChunk = (bytes: number) => {
      attempt.alive();
      received += bytes;
      // Keep-alive comments and deltas alike count: no stream may grow without end.
      if (received > bounds.maxStreamBytes)
        throw new ResponseTooLargeError("stream", bounds.maxStreamBytes, {
          provider: call.provider,
          status: response.status,
        });
    };
    try {
      const complete = await readBodyEvents((chunk) => response.read(chunk), onEvent, { onChunk });
      return {
        complete,
        get headers() {
          return response.headers;
        },
      };
    } catch (error) {
      if (error instanceof SseFormatError)
        throw new ProviderProtocolError(`${call.provider} stream is malformed: ${error.message}`, {
          provider: call.provider,
        });
      throw error;
    }
  });
}

/** Credentials inside the URL are secrets like the key: never shown, never in an error. */
function withUrlSecrets(call: HttpCall): HttpCall {
  const inUrl = targetOf(call.url, call.secrets ?? []).inUrl;
  return inUrl.length === 0 ? call : { ...call, secrets: [...(call.secrets ?? []), ...inUrl] };
}

/** What `send` derives from a call's URL and secrets alone. */
interface Target {
  /** The credentials inside the URL. */
  inUrl: readonly string[];
  /** The URL as events and errors show it. */
  shownUrl: string;
  /** The URL fetch is given, and the userinfo's `Basic` credentials. */
  split: UrlTarget;
}

/**
 * Every call of a model goes to the same URL with the same secrets, and parsing and redacting that
 * URL anew (two URL parses and a redactor per call) showed in the profile at high concurrency.
 * The cache is small and bounded: more distinct URLs than that only start it over.
 */
const targets = new Map<string, { secrets: readonly string[]; target: Target }[]>();
const MAX_TARGETS = 64;

function targetOf(url: string, secrets: readonly string[]): Target {
  let entries = targets.get(url);
  const found = entries?.find((entry) => sameStrings(entry.secrets, secrets));
  if (found !== undefined) return found.target;
  if (entries === undefined || entries.length >= MAX_TARGETS) {
    if (targets.size >= MAX_TARGETS) targets.clear();
    entries = [];
    targets.set(url, entries);
  }
  const target = { inUrl: urlSecrets(url), shownUrl: redact(url, secrets), split: splitUserinfo(url) };
  entries.push({ secrets: [...secrets], target });
  return target;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

type Reader<T> = (reply: WireReply, attempt: Attempt, bounds: Bounds) => Promise<T>;

/** What a call's options come to, worked out once per options object (a model passes the same one each call). */
interface Settings {
  policy: RetryPolicy;
  bounds: Bounds;
}
const settingsCache = new WeakMap<HttpOptions, Settings>();
const NO_OPTIONS: HttpOptions = {};

function settingsOf(options: HttpOptions): Settings {
  let settings = settingsCache.get(options);
  if (settings === undefined) {
    settings = { policy: { ...DEFAULT_RETRY, ...options.retry }, bounds: boundsOf(options) };
    settingsCache.set(options, settings);
  }
  return settings;
}

/**
 * The request headers of a call, merged once per headers object and kind of answer: a model sends
 * the same headers object on every call (which is why `HttpCall.headers` must not be changed in
 * place once used).
 */
const headerCache = new WeakMap<Record<string, string>, Map<string, Record<string, string>>>();

function headersOf(
  call: HttpCall,
  accept: string,
  target: UrlTarget,
  shownUrl: string,
): Record<string, string> {
  let byKind = headerCache.get(call.headers);
  const key = target.basicAuth === undefined ? accept : `${accept} ${target.basicAuth}`;
  let headers = byKind?.get(key);
  if (headers === undefined) {
    // The caller's headers win over these defaults; see mergeHeaders.
    headers = withBasicAuth(
      mergeHeaders({ accept, "content-type": "application/json" }, call.headers),
      target,
      call.provider,
      shownUrl,
    );
    if (byKind === undefined) {
      byKind = new Map();
      headerCache.set(call.headers, byKind);
    }
    byKind.set(key, headers);
  }
  return headers;
}

async function send<T>(call: HttpCall, options: HttpOptions, accept: string, read: Reader<T>): Promise<T> {
  const { policy, bounds } = settingsOf(options);
  const deadlineAt = performance.now() + bounds.deadlineMs;
  const exchange: Exchanger = exchangerOf(options.fetch);
  const text = JSON.stringify(call.body);
  const secrets = call.secrets ?? [];
  const { shownUrl, split: target } = targetOf(call.url, secrets);
  const headers = headersOf(call, accept, target, shownUrl);
  const { signal } = call;
  const requests = inFlightOf(signal);
  for (let n = 1; ; n++) {
    if (signal.aborted) throw signal.reason;
    const remainingMs = deadlineAt - performance.now();
    if (remainingMs <= 0) throw new CallDeadlineError(call.provider, bounds.deadlineMs);
    const attempt = new Attempt(call, options, { deadlineMs: bounds.deadlineMs, remainingMs });
    let failure: Failure;
    let current: Exchange | undefined;
    try {
      call.observer.onRequest({ body: call.body, url: shownUrl, attempt: n });
      current = exchange(target.url, headers, text);
      requests.add(current);
      attempt.started(current);
      const reply = await current.reply;
      if (reply.status < 200 || reply.status > 299) throw await failureOf(reply, call, attempt, bounds);
      return await read(reply, attempt, bounds);
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      failure = error instanceof Failure ? error : attempt.classify(error);
    } finally {
      if (current !== undefined) requests.delete(current);
      attempt.dispose();
    }
    const delayMs = failure.waitBefore(n, policy, attempt.hasDelivered);
    // A retry that could not begin before the deadline is no retry: the failure stands.
    if (delayMs === undefined || performance.now() + delayMs >= deadlineAt)
      throw scrub(failure.error, secrets);
    call.observer.onRetry?.({
      attempt: n + 1,
      maxAttempts: policy.maxRetries + 1,
      delayMs,
      error: redact(failure.error.message, secrets),
      ...(failure.serverWaitMs !== undefined && { retryAfterMs: failure.serverWaitMs }),
      cause: scrub(failure.error, secrets),
    });
    await sleep(delayMs, signal);
  }
}

/**
 * The requests in flight under each caller's signal, and one listener per signal that ends them
 * when it fires: a run's calls share its signal, and a listener added and removed for every call
 * cost more than the rest of the call's own bookkeeping. The set empties as calls end; the
 * listener goes with the signal.
 */
const inFlight = new WeakMap<AbortSignal, Set<Exchange>>();

function inFlightOf(signal: AbortSignal): Set<Exchange> {
  let requests = inFlight.get(signal);
  if (requests === undefined) {
    const live = new Set<Exchange>();
    signal.addEventListener(
      "abort",
      () => {
        for (const request of live) request.abort(signal.reason);
      },
      { once: true },
    );
    inFlight.set(signal, live);
    requests = live;
  }
  return requests;
}
