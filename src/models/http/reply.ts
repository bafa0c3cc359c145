// What the transport reads an answer through, whichever client fetched it, and the fetch path.
import { type OversizedPart, ResponseTooLargeError } from "../errors.js";
import type { Exchange, Exchanger, Route, WireReply } from "./call.js";
import { exchangeWithNode } from "./node-exchange.js";

/**
 * How the transport POSTs: through `fetchFn` when one is given, else over `node:http` unless
 * something asks for fetch: a proxy or mock installed as undici's global dispatcher (a
 * `ProxyAgent`, `EnvHttpProxyAgent`, `MockAgent`: anything but its default `Agent`), or
 * `NODE_USE_ENV_PROXY` (Node's fetch then honours `HTTPS_PROXY`).
 */
export function exchangerOf(fetchFn: typeof globalThis.fetch | undefined): Exchanger {
  if (fetchFn === undefined && !usesFetch()) return exchangeWithNode;
  const through = fetchFn ?? globalThis.fetch;
  let exchanger = viaFetch.get(through);
  if (exchanger === undefined) {
    exchanger = (route, body) => exchangeWithFetch(through, route, body);
    viaFetch.set(through, exchanger);
  }
  return exchanger;
}
const viaFetch = new WeakMap<typeof globalThis.fetch, Exchanger>();

/** Whether calls without a `fetch` option go through the global fetch (see `exchangerOf`). */
export function usesFetch(): boolean {
  // Node reads NODE_USE_ENV_PROXY once at startup; so does this (an env lookup per call showed).
  envProxySet ??= Boolean(process.env.NODE_USE_ENV_PROXY);
  if (envProxySet) return true;
  const dispatcher = (globalThis as Record<symbol, unknown>)[UNDICI_DISPATCHER];
  return dispatcher !== undefined && (dispatcher as object).constructor?.name !== "Agent";
}
const UNDICI_DISPATCHER = Symbol.for("undici.globalDispatcher.1");
let envProxySet: boolean | undefined;

/** Forgets the cached NODE_USE_ENV_PROXY (for tests that set it). */
export function resetEnvProxy(): void {
  envProxySet = undefined;
}

/** A POST through a `fetch` (Node's global one, or the one given as the `fetch` option). */
function exchangeWithFetch(fetchFn: typeof globalThis.fetch, route: Route, body: string): Exchange {
  const controller = new AbortController();
  const reply = fetchFn(route.url, {
    method: "POST",
    headers: route.headers,
    body,
    signal: controller.signal,
    // Never followed: a redirect would take the key headers along wherever it points (fetch
    // drops only `authorization` across origins, not `x-api-key` or `x-goog-api-key`), and a
    // POST turned into a GET is no model call.
    redirect: "error",
  }).then(replyOfResponse);
  return { reply, abort: (reason) => controller.abort(reason) };
}

/** A web `Response` as a `WireReply`. */
function replyOfResponse(response: Response): WireReply {
  return {
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    headers: response.headers,
    read: (onChunk) => readStream(response.body, onChunk),
    cancel: () => void response.body?.cancel().catch(() => {}),
  };
}

/** Reads a web stream as `WireReply.read` reads a body. */
export async function readStream(
  body: ReadableStream<Uint8Array> | null,
  onChunk: (chunk: Uint8Array) => boolean | undefined,
): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (onChunk(value) === true) return await endOf(reader);
    }
  } finally {
    // Completion, an error and an abort all release the connection; never wait on it.
    reader.cancel().catch(() => {});
  }
}

/**
 * Waits, for one turn of the event loop at most, for the body's end after the reader wanted no
 * more. A body read to its end lets the fetch finish cleanly; a cancel aborts the fetch instead
 * (undici builds an AbortError and tears the request down), which cost a short stream more than
 * the rest of its handling. Whatever still arrives is dropped unread, and an error after it
 * changes nothing.
 */
async function endOf(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let timer: NodeJS.Immediate | undefined;
  const turn = new Promise<"late">((resolve) => {
    timer = setImmediate(resolve, "late");
  });
  try {
    for (let reads = 0; reads < 2; reads++) {
      const next = await Promise.race([reader.read().catch(() => ({ done: true as const })), turn]);
      if (next === "late" || next.done) return;
    }
  } finally {
    clearImmediate(timer);
  }
}

/**
 * The body of `reply` as text, read chunk by chunk and given up on at `limitBytes`: a hostile
 * or broken server cannot make glassloop hold more than the cap in memory (a `Content-Length`
 * over it is refused before a byte is read). Over the cap is a `ResponseTooLargeError`.
 */
export async function readCapped(
  reply: WireReply,
  limitBytes: number,
  part: OversizedPart,
  provider: string,
): Promise<string> {
  const tooLarge = () => new ResponseTooLargeError(part, limitBytes, { provider, status: reply.status });
  const declared = Number(reply.header("content-length") ?? Number.NaN);
  if (declared > limitBytes) {
    reply.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  // The rest of an oversized body is never read: the throw drops the connection.
  await reply.read((chunk) => {
    total += chunk.byteLength;
    if (total > limitBytes) throw tooLarge();
    chunks.push(chunk);
    return undefined;
  });
  const only = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, total);
  // A view, not a copy: node's chunks are Buffers already, fetch's are Uint8Arrays.
  return Buffer.from(only.buffer, only.byteOffset, only.byteLength).toString("utf8");
}
