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
  /** The fetch to use; Node's global one by default. */
  fetch?: typeof globalThis.fetch;
}

/** Default request timeout: 10 minutes, for long non-streamed generations. */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** Default stream idle timeout: 2 minutes without a byte. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 120_000;

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
