import {
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Readable } from "node:stream";
import { urlToHttpOptions } from "node:url";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** What the transport hands to a fetch: one POST of a serialized body. */
export interface PostInit {
  method: "POST";
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  redirect: "error";
}

/** The fetch the transport calls: Node's global `fetch` and `postWithNode` both fit. */
export type PostFetch = (url: string, init: PostInit) => Promise<Response>;

// One keep-alive pool per scheme for every model call (fetch keeps one too). Idle sockets do not
// hold the process open, and the agent honours a server's `Keep-Alive: timeout=` hint.
const agents = {
  http: new HttpAgent({ keepAlive: true }),
  https: new HttpsAgent({ keepAlive: true }),
};

// What `fetch` would have added; the caller's own headers of these names win.
const DEFAULT_HEADERS = { "accept-encoding": "gzip, deflate", "user-agent": "node" };
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([204, 205, 304]);

/**
 * The request options per URL: a model sends every call to the same one, so it is parsed once.
 * Bounded: more distinct URLs than this start the cache over.
 */
const parsed = new Map<string, RequestOptions & { secure: boolean }>();
const MAX_PARSED = 64;

function optionsOf(url: string): RequestOptions & { secure: boolean } {
  let options = parsed.get(url);
  if (options === undefined) {
    const { protocol, hostname, port, path } = urlToHttpOptions(new URL(url));
    const secure = protocol === "https:";
    options = { protocol, hostname, port, path, secure, agent: secure ? agents.https : agents.http };
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(url, options);
  }
  return options;
}

/**
 * A POST over `node:http(s)` that answers like `fetch(url, { redirect: "error" })`: a `Response`
 * whose body is a web stream, the same rejection for a refused redirect, the signal's reason when
 * it aborts (before the headers: the promise; after: the body), socket errors with their codes.
 * Why not fetch: undici's fetch spends about 2.5 times the CPU of this on a short model answer
 * (its Request/Response machinery, a body stream per request, an abort listener and a
 * FinalizationRegistry entry per signal), which decided throughput at high concurrency.
 */
export function postWithNode(url: string, init: PostInit): Promise<Response> {
  const { signal } = init;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<Response>((resolve, reject) => {
    let options: RequestOptions & { secure: boolean };
    try {
      options = optionsOf(url);
    } catch (cause) {
      reject(new TypeError(`Invalid URL: ${url}`, { cause }));
      return;
    }
    // "response" once the headers are in (the body stream is live), "done" once it settled.
    let phase: "request" | "response" | "done" = "request";
    let body: ReadableStreamDefaultController<Uint8Array> | undefined;
    let response: IncomingMessage | undefined;
    const settle = () => {
      phase = "done";
      signal.removeEventListener("abort", onAbort);
    };
    const fail = (error: unknown) => {
      if (phase === "done") return;
      const streaming = phase === "response";
      settle();
      if (streaming) body?.error(error);
      else reject(error);
      // The connection is dropped, never returned to the pool half-read.
      response?.destroy();
      request.destroy();
    };
    const onAbort = () => fail(signal.reason);
    let request: ReturnType<typeof httpRequest>;
    try {
      request = (options.secure ? httpsRequest : httpRequest)({
        ...options,
        method: init.method,
        headers: { ...DEFAULT_HEADERS, ...init.headers, "content-length": Buffer.byteLength(init.body) },
      });
    } catch (cause) {
      // An invalid header name or value: fetch's Headers refuse it with a TypeError too.
      reject(new TypeError(cause instanceof Error ? cause.message : String(cause), { cause }));
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    request.on("error", fail);
    request.on("response", (res) => {
      response = res;
      res.on("error", fail);
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        // The shape fetch rejects with under `redirect: "error"`, so one classification fits both.
        fail(new TypeError("fetch failed", { cause: new Error("unexpected redirect") }));
        return;
      }
      let answer: Response;
      try {
        const headers: [string, string][] = [];
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) headers.push([raw[i] as string, raw[i + 1] as string]);
        const stream = NULL_BODY.has(status)
          ? null
          : bodyOf(res, { fail, settle, live: () => phase !== "done", started: (c) => (body = c) });
        answer = new Response(stream, { status, statusText: res.statusMessage ?? "", headers });
        if (stream === null) {
          settle();
          res.resume();
        } else phase = "response";
      } catch (cause) {
        // A status outside 200-599 or a header value a Response refuses.
        fail(new TypeError("fetch failed", { cause }));
        return;
      }
      resolve(answer);
    });
    request.end(init.body);
  });
}

/**
 * The body as a web stream (what the readers take), decoded when the server compressed it. It
 * pulls from the socket only as fast as it is read; a cancel drops the connection.
 */
function bodyOf(
  res: IncomingMessage,
  hooks: {
    fail: (error: unknown) => void;
    settle: () => void;
    /** False once the body ended, failed or was cancelled: what a decoder still emits is dropped. */
    live: () => boolean;
    started: (controller: ReadableStreamDefaultController<Uint8Array>) => void;
  },
): ReadableStream<Uint8Array> {
  const { fail, settle, live } = hooks;
  const source = decoded(res, fail);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      hooks.started(controller);
      source.on("data", (chunk: Buffer) => {
        if (!live()) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      });
      source.on("end", () => {
        if (!live()) return;
        settle();
        controller.close();
      });
      source.on("error", fail);
      // The connection closed before the whole message arrived (a reset, a proxy giving up).
      res.on("close", () => {
        if (!res.complete)
          fail(
            Object.assign(new Error("the connection closed before the body ended"), { code: "ECONNRESET" }),
          );
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      settle();
      source.destroy();
      res.destroy();
    },
  });
}

function decoded(res: IncomingMessage, fail: (error: unknown) => void): Readable {
  const coding = res.headers["content-encoding"]?.trim().toLowerCase();
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
 * Model calls go over `node:http` unless something asks for fetch: a proxy or mock installed as
 * undici's global dispatcher (a `ProxyAgent`, `EnvHttpProxyAgent`, `MockAgent`: anything but its
 * default `Agent`), or `NODE_USE_ENV_PROXY` (Node's fetch then honours `HTTPS_PROXY`).
 */
export function defaultPost(): PostFetch {
  if (envProxy()) return globalThis.fetch;
  const dispatcher = (globalThis as Record<symbol, unknown>)[Symbol.for("undici.globalDispatcher.1")];
  if (dispatcher !== undefined && (dispatcher as object).constructor?.name !== "Agent")
    return globalThis.fetch;
  return postWithNode;
}

// Node reads NODE_USE_ENV_PROXY once at startup; so does this (an env lookup per call showed in
// the profile).
let envProxySet: boolean | undefined;
function envProxy(): boolean {
  envProxySet ??= Boolean(process.env.NODE_USE_ENV_PROXY);
  return envProxySet;
}

/** Forgets the cached NODE_USE_ENV_PROXY (for tests that set it). */
export function resetEnvProxy(): void {
  envProxySet = undefined;
}
