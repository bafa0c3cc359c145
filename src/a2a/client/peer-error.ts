import { GlassloopError } from "../../core/errors.js";

/** Why a remote A2A agent could not be used (each one a bound or a check that held). */
export type A2APeerReason =
  /** The card is missing, not JSON, or not an agent card. */
  | "card_invalid"
  /** The card names an endpoint on another origin than its own (and that origin is not allowed). */
  | "card_origin"
  /** An answer that is not A2A JSON-RPC, or an event that is not one of A2A's. */
  | "protocol"
  /** The peer answered with an HTTP error. */
  | "http_status"
  /** The peer answered a JSON-RPC error. */
  | "remote_error"
  /** A body, a stream or an artifact went past its byte cap. */
  | "too_large"
  /** A stream sent more events than allowed. */
  | "too_many_events"
  /** The call ran past its deadline (its own, or what is left of the run's). */
  | "timeout"
  /** The task asked for input and nobody here may answer it, or the answers ran out. */
  | "input_required"
  /** The task ended failed, canceled or rejected. */
  | "task_failed";

/** A remote A2A agent answered something glassloop does not accept, or ran past a bound. */
export class A2APeerError extends GlassloopError {
  readonly reason: A2APeerReason;
  constructor(reason: A2APeerReason, message: string, options?: { cause?: unknown }) {
    super("a2a_peer", message, options);
    this.reason = reason;
  }
}

/**
 * A peer's body as text, read chunk by chunk and given up on at `max` bytes, so a hostile peer
 * cannot make glassloop hold more than the cap (a `Content-Length` over it is refused unread).
 */
export async function readBounded(response: Response, max: number, what: string): Promise<string> {
  const tooLarge = () => new A2APeerError("too_large", `${what} is larger than ${max} bytes`);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > max) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > max) throw tooLarge();
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks, total).toString("utf8");
}
