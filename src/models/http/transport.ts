// One model call over HTTP, top to bottom: `postJson` or `postEvents` → `Send.run` (the route,
// the body serialized once, the attempts) → an exchange (node-exchange.ts, or a fetch) → the reader
// of the answer. Failures become typed, redacted errors in failure.ts.

import { redact } from "../../core/redact.js";
import { sleep } from "../../core/sleep.js";
import { type Stop, type StopWatcher, signalStop } from "../../core/stop.js";
import {
  CallDeadlineError,
  errorFields,
  errorForStatus,
  ProviderProtocolError,
  ResponseTooLargeError,
} from "../errors.js";
import type { ModelDelta } from "../model.js";
import type {
  Exchange,
  HttpCall,
  HttpOptions,
  JsonReply,
  Route,
  Settings,
  StreamEnd,
  WireReply,
} from "./call.js";
import { routeOf, settingsOf } from "./call.js";
import { type Attempt, classify, excerptOf, Failure, failureOf, parseOrUndefined, scrub } from "./failure.js";
import { exchangerOf, readCapped } from "./reply.js";
import { readBodyEvents, SseFormatError, type SseHandler } from "./sse.js";

export type { HttpCall, HttpOptions, JsonReply, StreamEnd } from "./call.js";

/** POSTs `call.body` and returns the parsed JSON answer, with retries, timeouts and typed errors. */
export function postJson(call: HttpCall, options: HttpOptions = NO_OPTIONS): Promise<JsonReply> {
  return new Send(call, options, undefined).run(readJson);
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
  call: HttpCall,
  open: StreamHandlerFactory,
  options: HttpOptions = NO_OPTIONS,
): Promise<StreamEnd> {
  return new Send(call, options, open).run(readEventStream);
}

const NO_OPTIONS: HttpOptions = {};
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One call and its attempts. One timer serves the request timeout (until the answer is in; for a
 * stream, until its headers), the stream's idle timeout and the call's deadline: it is set for the
 * first that may come due, and when it fires it checks which has (a chunk only notes the time, so
 * a busy stream moves no timer). A timer per bound, or per chunk, showed in the profile.
 */
class Send implements Attempt, StopWatcher {
  readonly call: HttpCall;
  readonly settings: Settings;
  /** Set by `run` (a URL with credentials and an API key both is refused there, as a rejection). */
  route!: Route;
  readonly open: StreamHandlerFactory | undefined;
  timedOut: "request" | "stream_idle" | "deadline" | undefined;
  stage: "request" | "stream" = "request";
  /** Whether a delta reached the caller: from then on a failure must not be retried (it would replay it). */
  delivered = false;
  readonly #fetch: typeof globalThis.fetch | undefined;
  readonly #deadlineAt: number;
  readonly #stop: Stop | undefined;
  #exchange: Exchange | undefined;
  #timer: NodeJS.Timeout | undefined;
  #attemptAt = 0;
  #lastChunkAt = 0;
  #received = 0;
  #status = 0;

  constructor(call: HttpCall, options: HttpOptions, open: StreamHandlerFactory | undefined) {
    this.call = call;
    this.settings = settingsOf(options);
    this.open = open;
    this.#fetch = options.fetch;
    this.#deadlineAt = performance.now() + this.settings.deadlineMs;
    this.#stop = call.stop ?? (call.signal && signalStop(call.signal));
  }

  async run<T>(read: (send: Send, reply: WireReply) => Promise<T>): Promise<T> {
    const stop = this.#stop;
    if (!stop) throw new TypeError("An HTTP call needs a signal or a stop");
    // The call watches its stop while it runs: one watcher on the run's stop (an array push), and
    // when the stop fires it ends the request in flight.
    if (stop.aborted) throw stop.reason;
    stop.watch(this);
    try {
      return await this.#attempts(read, stop);
    } finally {
      stop.unwatch(this);
    }
  }

  async #attempts<T>(read: (send: Send, reply: WireReply) => Promise<T>, stop: Stop): Promise<T> {
    const { call, settings } = this;
    const route = routeOf(call, this.open !== undefined);
    this.route = route;
    const exchange = exchangerOf(this.#fetch);
    const text = JSON.stringify(call.body);
    for (let n = 1; ; n++) {
      if (stop.aborted) throw stop.reason;
      this.#attemptAt = performance.now();
      if (this.#attemptAt >= this.#deadlineAt)
        throw new CallDeadlineError(call.provider, settings.deadlineMs);
      this.timedOut = undefined;
      this.stage = "request";
      this.#arm(this.#attemptAt);
      let failure: Failure;
      try {
        call.observer.onRequest({ body: call.body, url: route.shownUrl, attempt: n });
        const current = exchange(route, text);
        this.#exchange = current;
        const reply = await current.reply;
        if (reply.status < 200 || reply.status > 299) throw await failureOf(reply, this);
        return await read(this, reply);
      } catch (error) {
        if (stop.aborted) throw stop.reason;
        failure = error instanceof Failure ? error : classify(error, this);
      } finally {
        clearTimeout(this.#timer);
        this.#timer = this.#exchange = undefined;
      }
      const delayMs = failure.waitBefore(n, settings.retry, this.delivered);
      // A retry that could not begin before the deadline is no retry: the failure stands.
      if (delayMs === undefined || performance.now() + delayMs >= this.#deadlineAt)
        throw scrub(failure.error, route.secrets);
      call.observer.onRetry?.({
        attempt: n + 1,
        maxAttempts: settings.retry.maxRetries + 1,
        delayMs,
        error: redact(failure.error.message, route.secrets),
        ...(failure.serverWaitMs !== undefined && { retryAfterMs: failure.serverWaitMs }),
        cause: scrub(failure.error, route.secrets),
      });
      await sleep(delayMs, stop.signal);
    }
  }

  /** The call's stop fired: the request in flight ends with its reason. */
  handleEvent(): void {
    this.#exchange?.abort(this.#stop?.reason);
  }

  /** The headers of a stream are in: from now on the idle timeout applies, and its bytes count. */
  streaming(status: number): void {
    this.stage = "stream";
    this.#status = status;
    this.#received = 0;
    this.#lastChunkAt = performance.now();
  }

  /** Passes a delta to the caller. */
  deliver(delta: ModelDelta): void {
    this.delivered = true;
    this.call.observer.onDelta?.(delta);
  }

  /** A chunk of the stream arrived: keep-alive comments and deltas alike count, so no stream grows without end. */
  chunk(bytes: number): void {
    this.#lastChunkAt = performance.now();
    this.#received += bytes;
    const max = this.settings.maxStreamBytes;
    if (this.#received > max)
      throw new ResponseTooLargeError("stream", max, { provider: this.call.provider, status: this.#status });
  }

  /** Sets the timer for the first bound that may come due: the deadline wins ties. */
  #arm(now = performance.now()): void {
    const { timeoutMs, streamIdleTimeoutMs } = this.settings;
    let due =
      this.stage === "request" ? this.#attemptAt + timeoutMs : this.#lastChunkAt + streamIdleTimeoutMs;
    // Before a stream's headers, it may begin at any moment: look again within its idle timeout.
    if (this.open !== undefined && this.stage === "request") due = Math.min(due, now + streamIdleTimeoutMs);
    // Node fires a longer timer at once; one that far off is looked at again when it fires. Whole
    // milliseconds, rounded up (never early): node keeps a list of timers per duration and stores
    // the duration on every timer, so a fraction (a deadline's remainder) would be a list of its
    // own and a boxed number.
    const ms = Math.min(Math.ceil(Math.max(0, Math.min(due, this.#deadlineAt) - now)), MAX_TIMER_MS);
    this.#timer = setTimeout(Send.#fire, ms, this);
  }

  static #fire(send: Send): void {
    const now = performance.now();
    const { timeoutMs, streamIdleTimeoutMs } = send.settings;
    const kind =
      now >= send.#deadlineAt
        ? "deadline"
        : send.stage === "request"
          ? now >= send.#attemptAt + timeoutMs && "request"
          : now >= send.#lastChunkAt + streamIdleTimeoutMs && "stream_idle";
    if (!kind) {
      send.#arm();
      return;
    }
    send.#timer = undefined;
    send.timedOut = kind;
    send.#exchange?.abort(new Error(`${kind} timeout`));
  }
}

async function readJson(send: Send, reply: WireReply): Promise<JsonReply> {
  const { provider } = send.call;
  const text = await readCapped(reply, send.settings.maxResponseBytes, "body", provider);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    const excerpt = excerptOf(text, send.route.secrets);
    throw new ProviderProtocolError(
      `${provider} sent a response that is not JSON`,
      { provider, status: reply.status, excerpt },
      { cause },
    );
  }
  return new Answer(reply, body);
}

async function readEventStream(send: Send, reply: WireReply): Promise<StreamEnd> {
  const { provider } = send.call;
  if (reply.header("content-type")?.includes("application/json")) {
    // The server answered the streaming request with one JSON body: an error, or no streaming.
    const text = await readCapped(reply, send.settings.maxResponseBytes, "body", provider);
    const { secrets } = send.route;
    const body = parseOrUndefined(redact(text, secrets));
    const init = { provider, status: reply.status, excerpt: excerptOf(text, secrets), body };
    if (errorFields(body).message !== undefined) throw errorForStatus(init);
    throw new ProviderProtocolError(`${provider} answered a streaming request without a stream`, init);
  }
  if (reply.status === 204 || reply.status === 205)
    throw new ProviderProtocolError(`${provider} sent an empty stream`, { provider });
  send.streaming(reply.status);
  const onEvent = (send.open as StreamHandlerFactory)((delta) => send.deliver(delta));
  try {
    const complete = await readBodyEvents((onChunk) => reply.read(onChunk), onEvent, {
      onChunk: (bytes) => send.chunk(bytes),
    });
    return new Answer(reply, undefined, complete);
  } catch (error) {
    if (error instanceof SseFormatError)
      throw new ProviderProtocolError(`${provider} stream is malformed: ${error.message}`, { provider });
    throw error;
  }
}

/** A successful answer; its headers are built when asked for (most callers read only the body). */
class Answer implements JsonReply, StreamEnd {
  readonly status: number;
  readonly #reply: WireReply;
  constructor(
    reply: WireReply,
    readonly body: unknown,
    readonly complete = false,
  ) {
    this.#reply = reply;
    this.status = reply.status;
  }
  get headers(): Headers {
    return this.#reply.headers;
  }
}
