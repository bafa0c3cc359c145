/**
 * A protocol-neutral HTTP server for provider tests, on 127.0.0.1 at a random port.
 *
 * Queue replies with `enqueue` (or set `handler`); each request takes the next one and is recorded
 * byte for byte. A reply is JSON, raw text, or an SSE body that can be split at chosen byte
 * offsets, slowed, cut short, reset mid-stream or left hanging, so every wire fault a provider
 * can meet is one line in a test:
 *
 * ```ts
 * const server = await startWireServer();
 * server.enqueue(
 *   { status: 429, headers: { "retry-after": "1" }, json: { error: { message: "slow down" } } },
 *   { sse: sseData(chunks), split: [10, 200], resetAt: 500 },
 * );
 * // ... point the provider at `${server.url}/v1`, then:
 * server.requests[0].body; // the parsed JSON the client sent
 * await server.close();
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A request as the server received it. */
export interface RecordedRequest {
  method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingMessage["headers"];
  /** The body exactly as received. */
  raw: string;
  /** `raw` parsed as JSON, or `undefined` when it is not JSON. */
  body: unknown;
}

interface ReplyBase {
  /** HTTP status; 200 by default. */
  status?: number;
  headers?: Record<string, string>;
  /** Wait this long before sending anything (the status line included): a slow first byte. */
  delayMs?: number;
}

/** A JSON body (serialized here unless it is already a string). */
export interface JsonReply extends ReplyBase {
  json: unknown;
}

/** Any body, sent as is (set `content-type` in `headers`); bytes for binary framings (AWS event streams). */
export interface TextReply extends ReplyBase {
  text: string | Uint8Array;
  split?: number[];
}

/** An event stream, with faults. Byte offsets count in the UTF-8 encoding of `sse`. */
export interface SseReply extends ReplyBase {
  sse: string;
  /** Byte offsets at which the body is cut into separate writes. */
  split?: number[];
  /** Pause between writes. */
  chunkDelayMs?: number;
  /** End the response cleanly after this many bytes (a stream cut before its end marker). */
  endAt?: number;
  /** Destroy the connection after this many bytes (a connection reset mid-stream). */
  resetAt?: number;
  /** Stop sending after this many bytes and keep the connection open (a stalled stream). */
  stallAt?: number;
}

/**
 * A body written piece by piece, for bodies too long to build (they are never held whole) and
 * streams that never end: `head`, then `piece` `times` times (forever when `times` is unset,
 * until the client goes away), `everyMs` apart, then `tail`. Set `content-type` in `headers`.
 */
export interface DripReply extends ReplyBase {
  drip: { head?: string; piece: string; times?: number; everyMs?: number; tail?: string };
}

/** Destroy the connection without answering. */
export interface ResetReply {
  reset: true;
  /** Wait this long first. */
  delayMs?: number;
}

/** What the server answers to one request. */
export type WireReply = JsonReply | TextReply | SseReply | DripReply | ResetReply;

/** Computes a reply from the request, e.g. to answer differently per path. */
export type WireHandler = (request: RecordedRequest, index: number) => WireReply;

/** A running wire server. */
export interface WireServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Adds replies to the queue, answered in order. */
  enqueue(...replies: WireReply[]): void;
  /** Used when the queue is empty; without one, an unexpected request gets a 599 and is counted. */
  handler: WireHandler | undefined;
  /** Requests that found no reply (a test that expected fewer calls should assert this is 0). */
  readonly unexpected: number;
  /** Replies still queued. */
  readonly pending: number;
  /** Forgets queued replies, recorded requests, the handler and the unexpected count (between tests). */
  reset(): void;
  /** Stops the server and destroys every open connection. */
  close(): Promise<void>;
}

/** Starts a wire server on 127.0.0.1 at a random free port. */
export async function startWireServer(): Promise<WireServer> {
  const queue: WireReply[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let unexpected = 0;

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const raw = Buffer.concat(parts).toString("utf8");
      const recorded: RecordedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        raw,
        body: parseJson(raw),
      };
      requests.push(recorded);
      const reply = queue.shift() ?? wire.handler?.(recorded, requests.length - 1);
      if (!reply) {
        unexpected++;
        res.writeHead(599, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "wire-server: no reply queued for this request" } }));
        return;
      }
      void answer(res, reply);
    });
  });
  server.on("connection", (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const wire: WireServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    handler: undefined,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    get unexpected() {
      return unexpected;
    },
    get pending() {
      return queue.length;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      unexpected = 0;
      wire.handler = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return wire;
}

async function answer(res: ServerResponse, reply: WireReply): Promise<void> {
  let closed = false;
  res.on("close", () => {
    closed = true;
  });
  if (reply.delayMs) await wait(reply.delayMs);
  if (closed) return;
  if ("reset" in reply) {
    res.socket?.destroy();
    return;
  }
  const status = reply.status ?? 200;
  if ("drip" in reply) {
    await drip(res, status, reply, () => closed);
    return;
  }
  if ("json" in reply) {
    const body = typeof reply.json === "string" ? reply.json : JSON.stringify(reply.json);
    res.writeHead(status, { "content-type": "application/json", ...reply.headers });
    res.end(body);
    return;
  }
  const isSse = "sse" in reply;
  const body = isSse ? reply.sse : reply.text;
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);
  res.writeHead(status, {
    ...(isSse && { "content-type": "text/event-stream", "cache-control": "no-cache" }),
    ...reply.headers,
  });
  // Headers go out at once, so a client sees the stream begin even if no byte of it follows.
  res.flushHeaders();
  const sse: Partial<SseReply> = isSse ? reply : {};
  const stop = Math.min(bytes.length, sse.endAt ?? sse.resetAt ?? sse.stallAt ?? bytes.length);
  const cuts = [...new Set([0, ...(reply.split ?? []).filter((n) => n > 0 && n < stop), stop])].sort(
    (a, b) => a - b,
  );
  for (let i = 0; i + 1 < cuts.length; i++) {
    if (closed) return;
    res.write(bytes.subarray(cuts[i], cuts[i + 1]));
    // Yield between writes so that each one leaves as its own TCP segment.
    await (sse.chunkDelayMs ? wait(sse.chunkDelayMs) : new Promise((resolve) => setImmediate(resolve)));
  }
  if (closed) return;
  if (sse.resetAt !== undefined) res.socket?.destroy();
  else if (sse.stallAt !== undefined)
    return; // left open until the client gives up or the server closes
  else res.end();
}

async function drip(res: ServerResponse, status: number, reply: DripReply, closed: () => boolean) {
  const { head, piece, times, everyMs, tail } = reply.drip;
  res.writeHead(status, reply.headers);
  res.flushHeaders();
  if (head) res.write(head);
  for (let n = 0; times === undefined || n < times; n++) {
    if (closed()) return;
    // Waits for the socket to drain, so a long body is never buffered whole on this side either.
    if (!res.write(piece))
      await new Promise((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
    await (everyMs ? wait(everyMs) : new Promise((resolve) => setImmediate(resolve)));
  }
  if (closed()) return;
  res.end(tail);
}

/** An OpenAI-style SSE body: one `data:` event per payload, then `data: [DONE]` unless `done` is false. */
export function sseData(payloads: readonly (string | object)[], options: { done?: boolean } = {}): string {
  const lines = payloads.map((p) => `data: ${typeof p === "string" ? p : JSON.stringify(p)}\n\n`);
  if (options.done !== false) lines.push("data: [DONE]\n\n");
  return lines.join("");
}

/** An SSE body of named events (`event:` then `data:`), as Anthropic sends them. */
export function sseEvents(events: readonly { event: string; data: string | object }[]): string {
  return events
    .map(
      (e) => `event: ${e.event}\ndata: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`,
    )
    .join("");
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
