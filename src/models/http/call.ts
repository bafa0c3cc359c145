import { READ_CAPS } from "../../core/read-caps.js";
import type { ModelObserver } from "../model.js";
import type { RetryPolicy } from "./retry.js";

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

/** The caps of `HttpOptions`, defaults filled in. */
export interface Bounds {
  deadlineMs: number;
  maxStreamBytes: number;
  maxResponseBytes: number;
  maxErrorBodyBytes: number;
}

/** `options`' caps with the defaults for those it leaves unset. */
export function boundsOf(options: HttpOptions): Bounds {
  return {
    deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
    maxStreamBytes: options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxErrorBodyBytes: options.maxErrorBodyBytes ?? DEFAULT_MAX_ERROR_BODY_BYTES,
  };
}

/** One JSON POST a provider wants made. */
export interface HttpCall {
  /** Label used in error messages, e.g. `openai`. */
  provider: string;
  url: string;
  /**
   * Request headers, secrets included; `accept` and `content-type: application/json` are added
   * unless present in any letter case (see `mergeHeaders`).
   */
  headers: Record<string, string>;
  /**
   * The JSON body. It is serialized once, and this same object is what `observer.onRequest`
   * receives on every attempt, so the event shows exactly the bytes sent. Do not mutate it later.
   */
  body: unknown;
  signal: AbortSignal;
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
