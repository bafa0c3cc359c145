/** A hand-written A2A peer for the client's tests: its card and a JSON-RPC handler on a free port. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

export type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** Every peer started, closed after each test. */
const servers: { close(): void; closeAllConnections(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

/** Closes `server` after the test, like the peers. */
export function track(server: { close(): void; closeAllConnections(): void }): void {
  servers.push(server);
}

/** A peer on a free port: its card (built from its own URL) and a JSON-RPC handler. */
export async function peer(
  card: (url: string) => unknown,
  rpc: Handler,
): Promise<{ url: string; closed: Promise<void>; requests: string[] }> {
  const requests: string[] = [];
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  let url = "";
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
    if (req.method === "GET") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(card(url)));
      return;
    }
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      res.on("close", markClosed);
      rpc(req, res, body);
    });
  }).listen(0, "127.0.0.1");
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, closed, requests };
}

export const cardAt = (url: string, extra: Record<string, unknown> = {}) => ({
  name: "hostile",
  description: "A peer.",
  version: "1",
  supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true },
  skills: [],
  ...extra,
});
export const working = (i: number) =>
  `data: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING", message: { messageId: `m${i}`, role: "ROLE_AGENT", parts: [{ text: "still working" }] } } } } })}\n\n`;
