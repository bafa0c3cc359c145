import { ProviderProtocolError } from "../../models/errors.js";

const EXCERPT_CHARS = 500;

/** A ProviderProtocolError for something Anthropic sent that breaks its own protocol. */
export function anthropicProtocolError(detail: string, received?: unknown): ProviderProtocolError {
  const text =
    received === undefined ? "" : typeof received === "string" ? received : JSON.stringify(received);
  return new ProviderProtocolError(`anthropic response is malformed: ${detail}`, {
    provider: "anthropic",
    excerpt: (text ?? "").slice(0, EXCERPT_CHARS),
    ...(received !== undefined && typeof received !== "string" && { body: received }),
  });
}
