/**
 * pydantic-ai's Bedrock cassettes (vendored under test/fixtures/captures/pydantic-ai, see its
 * NOTICE.md): the JSON body the client sent, and the answer as recorded, JSON or the binary
 * `application/vnd.amazon.eventstream` bytes (stored as YAML `!!binary`).
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { CAPTURES_DIR } from "./anthropic-captures.js";
import { randomOffsets } from "./cassettes.js";
import type { WireReply } from "./wire-server.js";

/** One recorded Bedrock exchange. */
export interface BedrockExchange {
  uri: string;
  /** The request body as sent. */
  body: Record<string, unknown>;
  status: number;
  /** The JSON answer, for `/converse` and errors. */
  json?: unknown;
  /** The event-stream bytes, for `/converse-stream`. */
  bytes?: Uint8Array;
}

interface Raw {
  request: { uri: string; body: string };
  response: { status: { code: number }; parsed_body?: unknown; body?: { string: unknown } };
}

/** The exchanges of `pydantic-ai/test_bedrock-<name>.yaml`. */
export function loadBedrockCassette(name: string): BedrockExchange[] {
  const doc = parse(readFileSync(`${CAPTURES_DIR}pydantic-ai/test_bedrock-${name}.yaml`, "utf8"), {
    schema: "yaml-1.1",
  }) as { interactions: Raw[] };
  return doc.interactions.map((i) => {
    const raw = i.response.body?.string;
    return {
      uri: i.request.uri,
      body: JSON.parse(i.request.body) as Record<string, unknown>,
      status: i.response.status.code,
      ...(i.response.parsed_body !== undefined && { json: i.response.parsed_body }),
      ...(raw instanceof Uint8Array && { bytes: raw }),
    };
  });
}

/** The reply replaying `exchange`, binary streams cut at `cuts` seeded offsets. */
export function bedrockReply(exchange: BedrockExchange | undefined, seed = 0, cuts = 0): WireReply {
  if (!exchange) return { status: 599, json: { message: "the cassette has no more exchanges" } };
  if (exchange.bytes)
    return {
      status: exchange.status,
      headers: { "content-type": "application/vnd.amazon.eventstream" },
      text: exchange.bytes,
      ...(cuts > 0 && { split: randomOffsets(exchange.bytes.length, cuts, seed) }),
    };
  return { status: exchange.status, json: exchange.json };
}
