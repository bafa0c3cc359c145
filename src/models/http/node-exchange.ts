import type { ClientRequest, IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import { urlToHttpOptions } from "node:url";
import type { Exchange, NodeTarget, Route, WireReply } from "./call.js";

// node:http, node:https (with tls) and node:zlib are loaded on the first call that needs them, not
// when glassloop is imported: they were a large share of its import time, and a program that never
// calls a model over HTTP needs none.
const load = createRequire(import.meta.url);
let http: typeof import("node:http") | undefined;
let https: typeof import("node:https") | undefined;
let zlib: typeof import("node:zlib") | undefined;
// One keep-alive pool per scheme for every model call (fetch keeps one too). Idle sockets do not
// hold the process open, and the agent honours a server's `Keep-Alive: timeout=` hint.
let httpAgent: import("node:http").Agent | undefined;
let httpsAgent: import("node:https").Agent | undefined;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([204, 205, 304]);
// How long, and how many bytes, the rest of a body the reader did not want may take to end.
const UNWANTED_MS = 1000;
const UNWANTED_BYTES = 64 * 1024;
// What `fetch` would have added; the caller's own headers of these names win.
const DEFAULT_HEADERS = { "accept-encoding": "gzip, deflate", "user-agent": "node" };

function targetOf(url: string, headers: Record<string, string>): NodeTarget {
  const parsed = new URL(url);
  const { protocol, hostname, port, path } = urlToHttpOptions(parsed);
  let request: typeof import("node:http").request;
  let agent: import("node:http").Agent;
  if (protocol === "https:") {
    https ??= load("node:https") as typeof import("node:https");
    agent = httpsAgent ??= new https.Agent({ keepAlive: true });
    request = https.request;
  } else {
    http ??= load("node:http") as typeof import("node:http");
    agent = httpAgent ??= new http.Agent({ keepAlive: true });
    request = http.request;
  }
  // By name in any letter case, the caller's last: what `setHeader` for each would have sent.
  const merged = new Map<string, string>();
  for (const layer of [DEFAULT_HEADERS, headers])
    for (const [name, value] of Object.entries(layer)) merged.set(name.toLowerCase(), value);
  merged.delete("content-length");
  // `host` as node writes it: brackets around an IPv6 address, no port when it is the default.
  const pairs = ["host", merged.get("host") ?? parsed.host];
  merged.delete("host");
  for (const [name, value] of merged) pairs.push(name, value);
  pairs.push("content-length", "");
  return { options: { protocol, hostname, port, path, agent, method: "POST" }, pairs, request };
}

/**
 * A POST over `node:http(s)` whose answer is read straight from the `IncomingMessage`: no web
 * `Response`, no web stream, no `AbortSignal` (the transport calls `abort`). It fails as
 * `fetch(url, { redirect: "error" })` does, so one classification fits both: a redirect is
 * `TypeError("fetch failed")` caused by "unexpected redirect", an invalid URL or header a
 * `TypeError`, socket errors keep their codes, and a body the connection cut short is `ECONNRESET`.
 */
export function exchangeWithNode(route: Pick<Route, "url" | "headers" | "node">, body: string): Exchange {
  let target = route.node;
  if (target === undefined) {
    try {
      route.node = target = targetOf(route.url, route.headers);
    } catch (cause) {
      return refused(new TypeError(`Invalid URL: ${route.url}`, { cause }));
    }
  }
  let request: ClientRequest;
  try {
    const pairs = target.pairs.slice();
    pairs[pairs.length - 1] = String(Buffer.byteLength(body));
    // Node copies the options before it returns: one object serves every request of the route.
    target.options.headers = pairs;
    request = target.request(target.options);
  } catch (cause) {
    // An invalid header name or value: fetch's Headers refuse it with a TypeError too.
    return refused(new TypeError(cause instanceof Error ? cause.message : String(cause), { cause }));
  }
  const exchange = new NodeExchange(request);
  request.end(body);
  return exchange;
}

function refused(error: unknown): Exchange {
  return { reply: Promise.reject(error), abort: () => {} };
}

/** Who reads the body, while they read. */
interface Reading {
  onChunk: (chunk: Uint8Array) => boolean | undefined;
  done: () => void;
  fail: (error: unknown) => void;
}

/** One request and its answer; the answer is this object itself once the headers are in. */
class NodeExchange implements Exchange, WireReply {
  readonly reply: Promise<WireReply>;
  status = 0;
  readonly #request: ClientRequest;
  #response: IncomingMessage | undefined;
  /** The body as read: the response itself, or its decoder when the server compressed it. */
  #source: Readable | undefined;
  /** "response" once the headers are in, "done" once the exchange settled. */
  #phase: "request" | "response" | "done" = "request";
  #headers: Headers | undefined;
  #resolve!: (reply: WireReply) => void;
  #reject!: (error: unknown) => void;
  /** What failed after the headers, before anyone read the body. */
  #failed: { error: unknown } | undefined;
  /** The body's reader, while one reads. */
  #reading: Reading | undefined;
  /** Bytes of the body that came after the reader wanted no more (undefined while it wants them). */
  #unwanted: number | undefined;
  /** The wait for the body's end once the reader wanted no more. */
  #waitForEnd: NodeJS.Timeout | undefined;

  constructor(request: ClientRequest) {
    this.#request = request;
    this.reply = new Promise<WireReply>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    request.on("error", this.#fail);
    request.on("response", this.#onResponse);
  }

  abort(reason: unknown): void {
    this.#fail(reason);
  }

  header(name: string): string | undefined {
    return rawHeader(this.#response?.rawHeaders ?? [], name);
  }

  get headers(): Headers {
    if (this.#headers === undefined) {
      const headers = new Headers();
      const raw = this.#response?.rawHeaders ?? [];
      for (let i = 0; i + 1 < raw.length; i += 2) {
        try {
          headers.append(raw[i] as string, raw[i + 1] as string);
        } catch {
          // A value web Headers refuse is left out; node's parser let it through.
        }
      }
      this.#headers = headers;
    }
    return this.#headers;
  }

  read(onChunk: (chunk: Uint8Array) => boolean | undefined): Promise<void> {
    if (this.#failed) return Promise.reject(this.#failed.error);
    const source = this.#source;
    if (this.#phase === "done" || source === undefined) return Promise.resolve();
    return new Promise<void>((done, fail) => {
      this.#reading = { onChunk, done, fail };
      source.on("data", this.#onData);
      source.on("end", this.#onEnd);
    });
  }

  /** Stops the flow of chunks to the reader (a web stream built on this one is full). */
  pause(): void {
    this.#source?.pause();
  }

  /** Lets chunks flow to the reader again. */
  resume(): void {
    this.#source?.resume();
  }

  cancel(): void {
    if (this.#phase === "done") return;
    this.#phase = "done";
    this.#drop();
    this.#finishReading()?.done();
  }

  #onResponse = (res: IncomingMessage): void => {
    this.#response = res;
    res.on("error", this.#fail);
    const status = res.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      // The shape fetch rejects with under `redirect: "error"`.
      this.#fail(new TypeError("fetch failed", { cause: new Error("unexpected redirect") }));
      return;
    }
    if (status < 200 || status > 599) {
      // A status a web Response refuses: fetch fails on it too.
      this.#fail(new TypeError("fetch failed", { cause: new RangeError(`status ${status}`) }));
      return;
    }
    this.status = status;
    if (NULL_BODY.has(status)) {
      this.#phase = "done";
      res.resume();
    } else {
      this.#phase = "response";
      this.#source = decoded(res, this.#fail);
      // The connection closed before the whole message arrived (a reset, a proxy giving up).
      res.on("close", this.#onClose);
    }
    this.#resolve(this);
  };

  #onData = (chunk: Buffer): void => {
    if (this.#unwanted !== undefined) {
      this.#unwanted += chunk.byteLength;
      if (this.#unwanted > UNWANTED_BYTES) this.cancel();
      return;
    }
    const reading = this.#reading;
    if (this.#phase !== "response" || reading === undefined) return;
    let stop: boolean | undefined;
    try {
      stop = reading.onChunk(chunk);
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (stop !== true) return;
    // The rest is unwanted and the reader is answered now. The body's end (a chunked body's last
    // chunk, often a packet behind the end marker) lets the connection be reused, sparing the next
    // call a new TCP and TLS handshake, so it may still come; a body open longer is dropped.
    this.#unwanted = 0;
    this.#finishReading()?.done();
    this.#waitForEnd = setTimeout(() => this.cancel(), UNWANTED_MS).unref();
  };

  #onEnd = (): void => {
    if (this.#phase === "done") return;
    this.#phase = "done";
    this.#finishReading()?.done();
  };

  /**
   * The reader, forgotten: once the exchange settled nothing may keep the reader's state alive
   * (a streamed answer's assembler holds the whole answer).
   */
  #finishReading(): Reading | undefined {
    const reading = this.#reading;
    this.#reading = undefined;
    clearTimeout(this.#waitForEnd);
    this.#waitForEnd = undefined;
    return reading;
  }

  #onClose = (): void => {
    if (!this.#response?.complete)
      this.#fail(
        Object.assign(new Error("the connection closed before the body ended"), { code: "ECONNRESET" }),
      );
  };

  #fail = (error: unknown): void => {
    if (this.#phase === "done") return;
    const streaming = this.#phase === "response";
    this.#phase = "done";
    // The connection is dropped, never returned to the pool half-read.
    this.#drop();
    const reading = this.#finishReading();
    if (!streaming) this.#reject(error);
    else if (reading) reading.fail(error);
    // (After the reader was answered, what fails is the unwanted rest: nobody is told.)
    else if (this.#unwanted === undefined) this.#failed = { error };
  };

  #drop(): void {
    this.#source?.destroy();
    this.#response?.destroy();
    this.#request.destroy();
  }
}

function decoded(res: IncomingMessage, fail: (error: unknown) => void): Readable {
  const coding = rawHeader(res.rawHeaders, "content-encoding")?.trim().toLowerCase();
  if (coding === undefined || coding === "" || coding === "identity") return res;
  zlib ??= load("node:zlib") as typeof import("node:zlib");
  const { createBrotliDecompress, createGunzip, createInflate } = zlib;
  const decoder =
    coding === "gzip" || coding === "x-gzip"
      ? createGunzip()
      : coding === "deflate"
        ? createInflate()
        : coding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return res;
  decoder.on("error", fail);
  return res.pipe(decoder);
}

/**
 * One header's value from node's raw name/value list, as `IncomingMessage.headers` would give it
 * (without building that object per answer: it showed in the profile). `name` is lower-case; a
 * repeated header is joined with `, `, but `content-length` and `content-type` keep the first.
 */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const key = raw[i] as string;
    if (key.length !== name.length || key.toLowerCase() !== name) continue;
    if (value === undefined) value = raw[i + 1] as string;
    else if (name === "content-length" || name === "content-type") break;
    else value = `${value}, ${raw[i + 1]}`;
  }
  return value;
}
