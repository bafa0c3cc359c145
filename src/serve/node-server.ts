import { createServer, type Server } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { closeNow, listen } from "../core/listen.js";
import type { ServeHandler } from "./handler.js";

/** Options of `startServer`. */
export interface NodeServerOptions {
  handler: ServeHandler;
  /** Default 0: a free port. */
  port?: number;
  /** Default `127.0.0.1`: reachable from this machine only. */
  host?: string;
  /** Time to receive a request's headers (default 15 s). */
  headersTimeoutMs?: number;
  /** Time to receive a whole request, body included (default 30 s); streamed responses are not cut. */
  requestTimeoutMs?: number;
}

/** A running server. */
export interface NodeServer {
  /** `http://host:port/`. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Hands the runs driven here over, stops accepting, ends open streams, and closes the handler. */
  close(): Promise<void>;
}

/**
 * Runs a handler on Node's HTTP server through `@hono/node-server`'s request listener, which
 * writes a streamed body as the socket drains: a client that stops reading stops the reads.
 */
export async function startServer(options: NodeServerOptions): Promise<NodeServer> {
  const listener = getRequestListener(options.handler.fetch);
  const server = createServer(listener);
  server.headersTimeout = options.headersTimeoutMs ?? 15_000;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;
  server.keepAliveTimeout = 5_000;
  const { port, origin } = await listen(server, options.port, options.host);
  return {
    url: `${origin}/`,
    port,
    server,
    async close() {
      // While still listening: requests meanwhile get 503, and streams end once their runs are handed over.
      await options.handler.drain(0);
      await closeNow(server);
      await options.handler.close();
    },
  };
}
