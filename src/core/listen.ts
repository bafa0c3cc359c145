import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Starts `server` listening on `host` (default `127.0.0.1`: this machine only) and `port` (default
 * 0: a free one). Resolves with the port it got and the origin to reach it (`http://host:port`,
 * an IPv6 address in brackets); rejects when it cannot listen (the port taken, the address not
 * this machine's).
 */
export async function listen(
  server: Server,
  port = 0,
  host = "127.0.0.1",
): Promise<{ port: number; origin: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port: bound, address } = server.address() as AddressInfo;
  const shown = address.includes(":") ? `[${address}]` : address;
  return { port: bound, origin: `http://${shown}:${bound}` };
}

/** Stops `server` and ends its open connections (kept-alive and streaming ones too), once closed. */
export function closeNow(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  return closed;
}
