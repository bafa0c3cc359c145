/**
 * The provider kit: what every HTTP provider shares, written once. A provider supplies its
 * translation (`HttpProvider`: the request body, the answer's body, a stream's events) and where
 * it lives (an `Endpoint`, resolved once per model into a `Connection` by http-endpoint.ts); the
 * kit makes each call: the context-window check, the body, the POST with its retries, deadline
 * and caps (models/http), and the assembler each streamed attempt starts afresh.
 */
import { stopOf } from "../core/stop.js";
import { checkContextWindow } from "./context-window.js";
import type { SseEvent } from "./http/sse.js";
import { type HttpCall, type HttpOptions, postEvents, postJson } from "./http/transport.js";
import type { Connection } from "./http-endpoint.js";
import type { ModelDelta, ModelObserver, ModelRequest, ModelResponse } from "./model.js";
import { reportForeignReasoning } from "./reasoning.js";

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
  http: HttpOptions = NO_OPTIONS,
): Promise<ModelResponse> {
  checkContextWindow(connection, request);
  const { provider } = connection;
  reportForeignReasoning(request.messages, provider, observer);
  const call: HttpCall = {
    provider,
    url: request.stream ? connection.streamUrl : connection.url,
    headers: connection.headers,
    body: wire.toBody(request, settings),
    stop: stopOf(request),
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

// One object for every call without options: the transport works out an options object's
// settings once per object, and a fresh `{}` per call would have it do so on every call.
const NO_OPTIONS: HttpOptions = Object.freeze({});

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
