import { exchangeWithNode } from "./node-exchange.js";
import { type Exchanger, exchangeWithFetch, type WireReply } from "./reply.js";

/** What the transport hands to a fetch: one POST of a serialized body. */
export interface PostInit {
  method: "POST";
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  redirect: "error";
}

/** A fetch the transport can call: Node's global `fetch` and `postWithNode` both fit. */
export type PostFetch = (url: string, init: PostInit) => Promise<Response>;

/** The `WireReply` of `exchangeWithNode`, which can also hold its body back (see `postWithNode`). */
interface PausableReply extends WireReply {
  pause(): void;
  resume(): void;
}

/**
 * The `node:http` path shaped like `fetch(url, { redirect: "error" })`, for code that wants a
 * fetch: a `Response` whose body is a web stream that pulls from the socket only as fast as it is
 * read, the signal's reason when it aborts (before the headers: the promise; after: the body),
 * the same rejection for a refused redirect, socket errors with their codes. The transport itself
 * reads the `IncomingMessage` directly (`exchangeWithNode`), without the web stream.
 */
export function postWithNode(url: string, init: PostInit): Promise<Response> {
  const { signal } = init;
  if (signal.aborted) return Promise.reject(signal.reason);
  const exchange = exchangeWithNode(url, init.headers, init.body);
  const onAbort = () => exchange.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const settle = () => signal.removeEventListener("abort", onAbort);
  return exchange.reply.then(
    (given) => {
      const reply = given as PausableReply;
      const pairs: [string, string][] = [];
      for (const pair of reply.headers) pairs.push(pair);
      if (reply.status === 204 || reply.status === 205 || reply.status === 304) {
        settle();
        return new Response(null, { status: reply.status, headers: pairs });
      }
      let cancelled = false;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          reply
            .read((chunk) => {
              controller.enqueue(chunk);
              if ((controller.desiredSize ?? 0) <= 0) reply.pause();
              return undefined;
            })
            .then(
              () => {
                // Not after a cancel: the stream is closed already.
                if (!cancelled) controller.close();
              },
              (error: unknown) => controller.error(error),
            )
            .finally(settle);
        },
        pull() {
          reply.resume();
        },
        cancel() {
          cancelled = true;
          settle();
          reply.cancel();
        },
      });
      return new Response(body, { status: reply.status, headers: pairs });
    },
    (error: unknown) => {
      settle();
      throw error;
    },
  );
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

const viaFetch = new WeakMap<typeof globalThis.fetch, Exchanger>();

/**
 * How the transport POSTs: through `fetchFn` when one is given, else as `defaultPost` decides,
 * the `node:http` path reading the `IncomingMessage` directly.
 */
export function exchangerOf(fetchFn: typeof globalThis.fetch | undefined): Exchanger {
  const chosen = fetchFn ?? defaultPost();
  if (chosen === postWithNode) return exchangeWithNode;
  const through = chosen as typeof globalThis.fetch;
  let exchanger = viaFetch.get(through);
  if (exchanger === undefined) {
    exchanger = (url, headers, body) => exchangeWithFetch(through, url, headers, body);
    viaFetch.set(through, exchanger);
  }
  return exchanger;
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
