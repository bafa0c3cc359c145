/**
 * A2A test helpers: glassloop's A2A handler on a free port over in-memory SQLite, the callers'
 * tokens, and `@a2a-js/sdk`'s client made the way its README says (ClientFactory + JSON-RPC).
 */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { getRequestListener } from "@hono/node-server";
import { type A2AHandlerOptions, createA2AHandler } from "../../src/a2a/index.js";
import type { ServeHandler } from "../../src/serve/index.js";
import { SqliteServeLog } from "../../src/serve/sqlite-serve-log.js";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.js";

export const ALICE = "alice-token-0123456789";
export const BOB = "bob-token-0123456789abc";

export interface Running {
  url: string;
  handler: ServeHandler;
  close(): Promise<void>;
}

/** Serves `handler.fetch` on 127.0.0.1 at a free port. */
export async function listen(
  fetchHandler: (r: Request) => Promise<Response>,
): Promise<{ url: string; server: Server }> {
  const server = createServer(getRequestListener(fetchHandler)).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** glassloop's A2A handler on a free port, over fresh in-memory databases. */
export async function serveA2A(
  options: Partial<A2AHandlerOptions> & Pick<A2AHandlerOptions, "agents">,
): Promise<Running> {
  const handler = createA2AHandler({
    auth: { tokens: { alice: ALICE, bob: BOB } },
    store: new SqliteStore({ path: ":memory:" }),
    log: new SqliteServeLog(":memory:"),
    ...options,
  });
  const { url, server } = await listen(handler.fetch);
  return {
    url,
    handler,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await handler.close();
    },
  };
}

/** A fetch that adds a bearer token, as a caller's client would. */
export function withToken(token: string): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
}

/**
 * `@a2a-js/sdk`'s client for the agent whose base URL is `agentUrl` (with its trailing slash: the
 * SDK resolves the card's path against it), authenticated as `token`. `legacy` picks the card's
 * v0.3 interface and the SDK's v0.3 transport (what an older client speaks).
 */
export async function sdkClient(agentUrl: string, token: string, legacy = false) {
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({
        fetchImpl: withToken(token),
        ...(legacy && { legacyCompat: { enabled: true } }),
      }),
    ],
  });
  if (!legacy) return factory.createFromUrl(agentUrl);
  const card = await new DefaultAgentCardResolver({ fetchImpl: withToken(token) }).resolve(agentUrl);
  card.supportedInterfaces = card.supportedInterfaces.filter((i) => i.protocolVersion === "0.3");
  return factory.createFromAgentCard(card);
}

/**
 * `@a2a-js/sdk`'s client over HTTP+JSON (its REST transport alone): spec 1.0's binding, or with
 * `legacy` the card's v0.3 HTTP+JSON interface and the SDK's v0.3 REST transport; `paths`
 * collects each call's method and path.
 */
export async function sdkRestClient(agentUrl: string, token: string, legacy = false, paths?: string[]) {
  const authorized = withToken(token);
  const fetchImpl: typeof fetch = (input, init) => {
    paths?.push(`${init?.method ?? "GET"} ${new URL(input instanceof Request ? input.url : input).pathname}`);
    return authorized(input, init);
  };
  const factory = new ClientFactory({
    transports: [
      new RestTransportFactory({
        fetchImpl,
        ...(legacy && { legacyCompat: { enabled: true } }),
      }),
    ],
  });
  if (!legacy) return factory.createFromUrl(agentUrl);
  const card = await new DefaultAgentCardResolver({ fetchImpl: withToken(token) }).resolve(agentUrl);
  card.supportedInterfaces = card.supportedInterfaces.filter(
    (i) => i.protocolVersion === "0.3" && i.protocolBinding === "HTTP+JSON",
  );
  return factory.createFromAgentCard(card);
}
