import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, resolve, sep } from "node:path";
import { createHandler, type ServeAgentFactory, SqliteServeLog, startServer } from "glassloop/serve";
import { SqliteStore } from "glassloop/store";
import type { BrowserContext } from "playwright-core";

/** Two callers of the browser tests, with their own tokens. */
export const TOKENS = { alice: "alice-page-token-0123456789", bob: "bob-page-token-0123456789ab" } as const;

/** A real `glassloop serve` server (the handler on Node, the built chat page at `/`) for the browser tests. */
export interface ChatServer {
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  /** GETs an API path as `who`, for facts the page does not show. */
  api<T>(path: string, who?: keyof typeof TOKENS): Promise<T>;
  /** Cuts every open connection, as a dropped network does (the server goes on listening). */
  dropConnections(): void;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

/** A built page the app serves beside the handler, as an app mounts glassloop's routes next to its own. */
function servePages(pages: Record<string, string>, request: Request): Response | undefined {
  const { pathname } = new URL(request.url);
  for (const [prefix, dir] of Object.entries(pages)) {
    if (!pathname.startsWith(prefix)) continue;
    const file = resolve(dir, pathname.slice(prefix.length) || "index.html");
    if (!file.startsWith(resolve(dir) + sep) || !existsSync(file))
      return new Response("not found", { status: 404 });
    return new Response(readFileSync(file), {
      headers: { "content-type": TYPES[extname(file)] ?? "application/octet-stream" },
    });
  }
  return undefined;
}

/**
 * Starts the handler on 127.0.0.1 with file-backed SQLite store and log in a fresh folder; `pages`
 * (URL prefix → folder) are served from the same origin, ahead of the handler's routes.
 */
export async function startChatServer(
  agents: Record<string, ServeAgentFactory>,
  pages: Record<string, string> = {},
): Promise<ChatServer> {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-serve-page-"));
  const store = new SqliteStore({ path: join(dir, "store.db") });
  const log = new SqliteServeLog(join(dir, "serve.db"));
  // No secrets from this process's environment: how far the scrubbed stream trails the model while
  // it waits at a gate (the longest secret minus one, or two words) stays the same on every machine.
  const handler = createHandler({ agents, auth: { tokens: TOKENS }, store, log, redaction: { env: {} } });
  const server = await startServer({
    handler: { ...handler, fetch: async (request) => servePages(pages, request) ?? handler.fetch(request) },
  });
  return {
    url: server.url,
    async api<T>(path: string, who: keyof typeof TOKENS = "alice"): Promise<T> {
      const res = await fetch(new URL(path, server.url), {
        headers: { authorization: `Bearer ${TOKENS[who]}` },
      });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    dropConnections() {
      server.server.closeAllConnections();
    },
    async close() {
      await server.close();
      log.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs a browser context in as `who`: the login cookie the page's `#token=` link would set. */
export async function signInAs(
  context: BrowserContext,
  url: string,
  who: keyof typeof TOKENS,
): Promise<void> {
  await context.clearCookies();
  await context.addCookies([
    { name: "glassloop_token", value: TOKENS[who], url, httpOnly: true, sameSite: "Strict" },
  ]);
}
