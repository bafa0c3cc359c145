/**
 * pydantic-ai cassettes of any provider (vendored under test/fixtures/captures/pydantic-ai, see its
 * NOTICE.md) as wire-server replies: JSON bodies as recorded, SSE bodies byte for byte, optionally
 * cut into writes at pseudo-random byte offsets (seeded, so a failure reproduces).
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { CAPTURES_DIR } from "./anthropic-captures.js";
import type { WireReply } from "./wire-server.js";

/** One recorded exchange: the body the client sent and what the provider answered. */
export interface RecordedExchange<Body = Record<string, unknown>> {
  request: { uri: string; method: string; parsed_body: Body };
  response: {
    status: { code: number };
    headers?: Record<string, string[]>;
    parsed_body?: unknown;
    body?: { string: string } | string;
  };
}

/** The exchanges of `pydantic-ai/<name>.yaml`. */
export function loadCassette<Body = Record<string, unknown>>(name: string): RecordedExchange<Body>[] {
  const doc = parse(readFileSync(`${CAPTURES_DIR}pydantic-ai/${name}.yaml`, "utf8")) as {
    interactions: RecordedExchange<Body>[];
  };
  return doc.interactions;
}

/** The recorded SSE body of a streamed exchange, or `undefined` for a JSON one. */
export function sseBodyOf(exchange: RecordedExchange<unknown>): string | undefined {
  const body = exchange.response.body;
  const text = typeof body === "string" ? body : body?.string;
  return exchange.response.parsed_body === undefined && typeof text === "string" ? text : undefined;
}

/** The reply that replays `exchange`; SSE bodies cut at `cuts` random offsets drawn from `seed`. */
export function replyOf(exchange: RecordedExchange<unknown> | undefined, seed = 0, cuts = 0): WireReply {
  if (!exchange) return { status: 599, json: { error: { message: "the cassette has no more exchanges" } } };
  const sse = sseBodyOf(exchange);
  const status = exchange.response.status.code;
  if (sse === undefined) return { status, json: exchange.response.parsed_body };
  const length = Buffer.byteLength(sse);
  return {
    status,
    headers: { "content-type": "text/event-stream" },
    sse,
    ...(cuts > 0 && { split: randomOffsets(length, cuts, seed) }),
  };
}

/** `count` distinct offsets in 1..length-1, ascending, from a small seeded generator. */
export function randomOffsets(length: number, count: number, seed: number): number[] {
  let state = (seed * 2654435761 + 1) >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const offsets = new Set<number>();
  while (offsets.size < Math.min(count, length - 1)) offsets.add(1 + Math.floor(next() * (length - 1)));
  return [...offsets].sort((a, b) => a - b);
}
