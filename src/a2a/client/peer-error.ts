import { GlassloopError } from "../../core/errors.js";
import { readBodyCapped } from "../../core/read-caps.js";

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
  // The one capped body reader (core/read-caps.ts).
  const bytes = await readBodyCapped(response.body, max, tooLarge, response.headers.get("content-length"));
  return bytes.toString("utf8");
}
