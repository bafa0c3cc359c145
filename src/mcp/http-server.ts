import { createServer } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { closeNow, listen } from "../core/listen.js";
import { createMcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from "./http-handler.js";
import { type AgentServerOptions, createAgentServer, type ServableAgent } from "./server.js";

/** Options of `createAgentMcpHandler`: how the agent is offered and who may reach it. */
export interface AgentMcpHttpOptions extends AgentServerOptions, McpHttpOptions {}

/** The agent as an MCP server on streamable HTTP, as a handler to mount (e.g. at `/mcp`). */
export function createAgentMcpHandler(
  agent: ServableAgent,
  options: AgentMcpHttpOptions = {},
): McpHttpHandler {
  return createMcpHttpHandler(() => createAgentServer(agent, options), options);
}

/** Where and how `serveAgentOverHttp` listens. */
export interface ServeOverHttpOptions extends AgentMcpHttpOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default `127.0.0.1`. Another address needs `allowedHosts` (the names clients will use). */
  host?: string;
  /** The endpoint's path (default `/mcp`). */
  path?: string;
}

/** A running MCP HTTP server. */
export interface RunningMcpServer {
  /** The endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `agent` over streamable HTTP (`glassloop mcp serve --http`). */
export async function serveAgentOverHttp(
  agent: ServableAgent,
  options: ServeOverHttpOptions = {},
): Promise<RunningMcpServer> {
  const path = options.path ?? "/mcp";
  const handler = createAgentMcpHandler(agent, options);
  const listener = getRequestListener((request: Request) =>
    new URL(request.url).pathname === path
      ? handler.fetch(request)
      : Promise.resolve(new Response(null, { status: 404 })),
  );
  const server = createServer(listener);
  server.headersTimeout = 15_000;
  const { origin } = await listen(server, options.port, options.host);
  return {
    url: `${origin}${path}`,
    async close() {
      await handler.close();
      await closeNow(server);
    },
  };
}
