/** The shared HTTP layer of model providers: JSON and SSE over node:http (or a given fetch), retries, timeouts, redaction. */

export { REDACTED, redact } from "../../core/redact.js";
export {
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_RETRY,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type HttpCall,
  type HttpOptions,
  type JsonReply,
  mergeHeaders,
  type RetryPolicy,
  type StreamEnd,
} from "./call.js";
export { backoffMs, isRetryableStatus, retryAfterMs } from "./failure.js";
export { MAX_EVENT_CHARS, readEvents, type SseEvent, type SseHandler } from "./sse.js";
export { postEvents, postJson, type StreamHandlerFactory } from "./transport.js";
