import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { ConfigError } from "../core/errors.js";
import { BoundedEventStore } from "./event-store.js";
import { type McpServer, WebStandardStreamableHTTPServerTransport } from "./sdk.js";

/** Who may reach an MCP server over HTTP, and how much it holds. */
export interface McpHttpOptions {
  /**
   * Bearer tokens a caller must send (`Authorization: Bearer <token>`); without any, the server
   * answers anyone who passes the host and origin checks (only sensible on loopback).
   */
  tokens?: readonly string[];
  /**
   * `Host` values accepted (`name:port` or `name`). Default: loopback names only (`localhost`,
   * `127.0.0.1`, `[::1]`, any port), which stops DNS rebinding: a page on another site that
   * re-points its name at 127.0.0.1 still sends its own name as the Host.
   */
  allowedHosts?: readonly string[];
  /** `Origin` values accepted when a browser sends one (default: loopback origins only). */
  allowedOrigins?: readonly string[];
  /** Most sessions at once (default 64); an initialize beyond that gets 503. */
  maxSessions?: number;
  /** A session unused this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Largest request body read (default 4 MiB); more is answered 413 before parsing. */
  maxBodyBytes?: number;
  /** Messages kept per SSE stream for a client that reconnects with `Last-Event-ID` (default 256). */
  replayPerStream?: number;
}

/** An MCP server on streamable HTTP as a Web-standard handler: mount `fetch` at any path. */
export interface McpHttpHandler {
  fetch(request: Request): Promise<Response>;
  /** Sessions open now. */
  sessions(): number;
  /** Closes every session. */
  close(): Promise<void>;
}

type Session = { transport: WebStandardStreamableHTTPServerTransport; server: McpServer; used: number };

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Streamable HTTP for MCP servers made by `makeServer` (one per session): sessions with ids,
 * resumable SSE streams, host and origin checks against DNS rebinding, bearer tokens, a cap on
 * bodies and sessions. The protocol itself is the SDK's transport.
 */
export function createMcpHttpHandler(
  makeServer: () => McpServer,
  options: McpHttpOptions = {},
): McpHttpHandler {
  const maxSessions = options.maxSessions ?? 64;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  if (!(maxSessions >= 1)) throw new ConfigError("maxSessions must be at least 1");
  const digests = (options.tokens ?? []).map(digest);
  if (digests.length === 0 && options.tokens !== undefined)
    throw new ConfigError("tokens is empty: give at least one, or leave it out for an open loopback server");
  const sessions = new Map<string, Session>();
  const events = new BoundedEventStore(options.replayPerStream ?? 256, maxSessions * 16);

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) if (now - session.used > idleMs) void closeSession(id);
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  async function closeSession(id: string): Promise<void> {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.server.close().catch(() => {});
  }

  async function open(request: Request): Promise<Response> {
    if (sessions.size >= maxSessions)
      return problem(503, `This MCP server holds ${maxSessions} sessions already; try again later.`);
    const server = makeServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      eventStore: events,
      // Tells a client how soon to reconnect to a stream the server closed (and primes resumption).
      retryInterval: 1_000,
      ...(options.maxBodyBytes !== undefined && { maxRequestBodySize: options.maxBodyBytes }),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, used: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request);
  }

  return {
    async fetch(request) {
      const refused = checkHostAndOrigin(request, options) ?? checkToken(request, digests);
      if (refused) return refused;
      const id = request.headers.get("mcp-session-id");
      if (id) {
        const session = sessions.get(id);
        // The spec's answer to an unknown or ended session: 404, and the client starts a new one.
        if (!session) return problem(404, "Unknown or expired MCP session.", -32001);
        session.used = Date.now();
        return session.transport.handleRequest(request);
      }
      if (request.method === "POST") return open(request);
      return problem(400, "Bad request: no mcp-session-id header (initialize first).", -32000);
    },
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.keys()].map(closeSession));
    },
  };
}

/** 403 for a Host or Origin this server was not told to accept, else undefined. */
function checkHostAndOrigin(request: Request, options: McpHttpOptions): Response | undefined {
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const hostOk = options.allowedHosts ? options.allowedHosts.includes(host) : LOOPBACK.has(hostname(host));
  if (!hostOk) return problem(403, `Host ${JSON.stringify(host.slice(0, 100))} is not allowed.`, -32000);
  const origin = request.headers.get("origin");
  if (origin === null) return undefined;
  const originOk = options.allowedOrigins
    ? options.allowedOrigins.includes(origin)
    : URL.canParse(origin) && LOOPBACK.has(new URL(origin).hostname.replace(/^::1$/, "[::1]"));
  if (!originOk)
    return problem(403, `Origin ${JSON.stringify(origin.slice(0, 100))} is not allowed.`, -32000);
  return undefined;
}

/** 401 unless the request carries one of the tokens (compared in constant time), else undefined. */
function checkToken(request: Request, digests: Buffer[]): Response | undefined {
  if (digests.length === 0) return undefined;
  const header = request.headers.get("authorization") ?? "";
  const given = /^Bearer\s+(.+)$/i.exec(header)?.[1];
  let found = false;
  if (given !== undefined) {
    const mine = digest(given.trim());
    for (const known of digests) if (timingSafeEqual(known, mine)) found = true;
  }
  if (found) return undefined;
  const response = problem(401, "This MCP server needs a bearer token.", -32001);
  response.headers.set("www-authenticate", 'Bearer realm="glassloop"');
  return response;
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** The hostname of a Host header value (`name:port`, `[v6]:port`). */
function hostname(host: string): string {
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":")[0] ?? "");
}

/** A JSON-RPC error body with an HTTP status, as the SDK's transport answers. */
function problem(status: number, message: string, code = -32000): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}
