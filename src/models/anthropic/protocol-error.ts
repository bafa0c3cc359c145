import { GlassloopError } from "../../errors.js";

/** Anthropic sent something that breaks its own protocol (a malformed body or stream). */
export class AnthropicProtocolError extends GlassloopError {
  /** An excerpt of what arrived, for the trace. */
  readonly excerpt: string;
  constructor(detail: string, received?: unknown) {
    super("provider_protocol", `Anthropic response is malformed: ${detail}`);
    this.excerpt = excerptOf(received);
  }
}

function excerptOf(received: unknown): string {
  if (received === undefined) return "";
  const text = typeof received === "string" ? received : JSON.stringify(received);
  return (text ?? "").slice(0, 500);
}
