// The node:http path shaped like fetch, for code that wants a fetch (Bedrock signs each request
// and reads a binary event stream through a web `Response`). The transport itself does not use it.

import type { WireReply } from "./call.js";
import { exchangeWithNode } from "./node-exchange.js";
import { usesFetch } from "./reply.js";

export { resetEnvProxy } from "./reply.js";

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
  const exchange = exchangeWithNode({ url, headers: init.headers }, init.body);
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

/** The fetch model calls would use without a `fetch` option: node:http, or the global fetch (see `exchangerOf`). */
export function defaultPost(): PostFetch {
  return usesFetch() ? globalThis.fetch : postWithNode;
}
