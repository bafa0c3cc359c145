import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
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
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/`,
    port,
    server,
    async close() {
      // While still listening: requests meanwhile get 503, and streams end once their runs are handed over.
      await options.handler.drain(0);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await options.handler.close();
    },
  };
}
