import { Hono, type MiddlewareHandler } from "hono";
import type { A2AServeOptions } from "../a2a/server/options.js";
import { a2aRoutes } from "../a2a/server/routes.js";
import { type RedactionOptions, Redactor } from "../core/redact.js";
import { deferredDefaultStore } from "../store/sqlite/deferred-default-store.js";
import type { Store } from "../store/store.js";
import { AgentTable, type ServeAgentFactory } from "./agents.js";
import { aguiRoutes } from "./agui-routes.js";
import { AttachmentRules, type ServeAttachments } from "./attachments.js";
import { Authenticator, bearerOf, type ServeAuth, TOKEN_COOKIE } from "./auth.js";
import { chatRoutes } from "./chat-routes.js";
import { type CorsOptions, CorsPolicy } from "./cors.js";
import { problemResponse, ServeRequestError } from "./errors.js";
import { leasedStore } from "./leased-store.js";
import { RateLimiter, resolveLimits, type ServeLimits } from "./limits.js";
import { listenToLog, openServeLog } from "./log-config.js";
import { type PageDirs, pageRoutes } from "./page-routes.js";
import { RunHub } from "./run-hub.js";
import { RunManager } from "./run-manager.js";
import { runRoutes } from "./run-routes.js";
import { ScaleRunManager, type ServeScaleOptions } from "./scale-runs.js";
import type { ServeContext, ServeEnv } from "./serve-context.js";
import type { ServeLog } from "./serve-log.js";
import type { ServeRuns } from "./serve-runs.js";

/** Options of `createHandler`. */
export interface ServeOptions {
  /** The agents by name, as factories called per run (hidden context stays in the server). */
  agents: Readonly<Record<string, ServeAgentFactory>>;
  /** Who may call (default: tokens from `GLASSLOOP_SERVE_TOKENS`; `"none"` for local development only). */
  auth?: ServeAuth;
  /** Where runs and sessions live (default: the default SQLite store). Replaces each agent's own. */
  store?: Store;
  /**
   * Where streams, chats and approvals live: a ServeLog, a `postgres://` URL (several server
   * processes may share it), or a SQLite path (default `.glassloop/serve.db`).
   */
  log?: ServeLog | string;
  /**
   * How long a process's claim on a run it drives holds unless renewed (ms, default 10,000;
   * renewed every quarter of it): when it runs out, another process on the log takes the run over.
   */
  leaseMs?: number;
  /**
   * Run each turn on scale-out workers (`glassloop worker`, docs/scale-out.md) instead of in this
   * process: a `ScaleClient`, or where to connect one (`{ url }`, default `GLASSLOOP_POSTGRES_URL`).
   * The server enqueues the run and streams the worker's events (docs/serve.md, "Serving with
   * scale-out workers"). The workers need the same agents by name: one module can serve as both.
   */
  scale?: ServeScaleOptions;
  /** Cross-origin callers allowed (default: none; same-origin only). */
  cors?: CorsOptions;
  limits?: ServeLimits;
  /** File parts a user message may carry (default: inline images and PDFs only, no URLs). */
  attachments?: ServeAttachments;
  /** Secrets scrubbed from everything streamed, on top of credential-named environment variables. */
  redaction?: RedactionOptions;
  /** Serve the chat page at `/` and the trace viewer at `/trace/` (default true); folders to serve them from. */
  page?: boolean | PageDirs;
  /**
   * The client's address, for `limits.requestsPerMinutePerAddress` (default: the socket's address
   * under `startServer`). Behind a proxy, read the header your proxy sets; never trust one it does not.
   */
  clientAddress?: (request: Request) => string | undefined;
  /**
   * How long `drain()` (and `glassloop serve` on SIGTERM) lets the runs driven here reach their
   * next step before handing them over mid-step (ms, default 10,000).
   */
  drainMs?: number;
  /** Resume runs a previous process left running, and take over those of processes that die later (default true). */
  recover?: boolean;
  /** Serve each agent over A2A too: its card and JSON-RPC under `/a2a/<agent>` (default off; docs/a2a.md). */
  a2a?: boolean | A2AServeOptions;
  /**
   * An MCP endpoint mounted at `/mcp`, e.g. `createAgentMcpHandler(agent, { tokens })` from
   * glassloop/mcp (docs/mcp.md); it checks its own tokens, hosts and origins, and closes with this handler.
   */
  mcp?: { fetch(request: Request): Promise<Response>; close(): Promise<void> };
}

/** Counters for monitoring (and the bench's memory figures). */
export interface ServeStats {
  /** Runs this process drives now. */
  runs: number;
  /** SSE responses open now. */
  streams: number;
  /** Bytes of SSE handed to the runtime since start (what a client's connection has taken). */
  bytesSent: number;
}

/** A Web-standard handler: mount `fetch` in any runtime; `close` when done. */
export interface ServeHandler {
  /**
   * `Request → Response`: Next.js route handlers, Hono, Bun/Deno `serve`, Node through an adapter
   * (whose bindings, `env`, carry the socket the client's address is read from).
   */
  fetch: (request: Request, env?: unknown) => Promise<Response>;
  /** Settles when runs left by a previous process have been resumed (or reported). */
  ready: Promise<void>;
  /** What the server holds now: runs driven here, open streams, and bytes handed to the runtime so far. */
  stats: () => ServeStats;
  /**
   * Stops serving for a rolling restart: new requests get 503 with Retry-After, every run driven
   * here is handed over to the other processes on the log (at its next step, or at its last
   * checkpoint once `withinMs` has passed, default `drainMs`), and the streams open here end so
   * their clients reconnect (to another process) and read on. Settles when no run is driven here.
   * Called again with 0 during a drain, it hands the rest over at once.
   */
  drain: (withinMs?: number) => Promise<void>;
  /** Hands the runs in progress over (a drain with no wait: they stay resumable) and closes the log. */
  close: () => Promise<void>;
}

/**
 * The HTTP face of glassloop agents: the AI SDK UI message stream for `useChat`, AG-UI for
 * `HttpAgent`, resumable streams over stored runs, approvals, auth and ownership, limits.
 * See docs/serve.md.
 */
export function createHandler(options: ServeOptions): ServeHandler {
  const store = options.store ?? deferredDefaultStore();
  const { log, owned: ownsLog } = openServeLog(options.log);
  const limits = resolveLimits(options.limits);
  const auth = new Authenticator(options.auth);
  const cors = new CorsPolicy(options.cors);
  const redactor = new Redactor(options.redaction);
  const leaseMs = options.leaseMs ?? 10_000;
  const agents = new AgentTable({ ...options.agents }, leasedStore(store, leaseMs));
  const hub = new RunHub(log);
  const runs: ServeRuns = options.scale
    ? new ScaleRunManager({
        log,
        hub,
        agents,
        redactor,
        maxActiveRuns: limits.maxActiveRuns,
        leaseMs,
        scale: options.scale,
      })
    : new RunManager({ log, hub, agents, store, redactor, maxActiveRuns: limits.maxActiveRuns, leaseMs });
  const counters = { streams: 0, bytesSent: 0 };
  const ctx: ServeContext = {
    log,
    hub,
    runs,
    agents,
    auth,
    limits,
    redactor,
    attachments: new AttachmentRules(options.attachments),
    onBytes: (bytes) => {
      counters.bytesSent += bytes;
    },
    onStream: (delta) => {
      counters.streams += delta;
    },
  };
  const rate = new RateLimiter(limits.requestsPerMinute);

  const app = new Hono<ServeEnv>();
  app.onError((error) => {
    if (error instanceof ServeRequestError) return problemResponse(error);
    // Details stay in the server's log; the caller gets a code and no stack.
    console.error("glassloop serve:", error);
    return problemResponse(
      new ServeRequestError(500, "internal", "the server failed to answer this request"),
    );
  });
  app.notFound(() => problemResponse(new ServeRequestError(404, "not_found", "no such route")));

  app.use("*", async (c, next) => {
    const preflight = cors.check(c.req.raw);
    if (preflight) return preflight;
    await next();
    cors.decorate(c.req.raw, c.res.headers);
  });

  // A draining process starts nothing and opens no stream: the client retries, and a load
  // balancer sends it to another process.
  let draining: Promise<void> | undefined;
  app.use("*", async (c, next) => {
    if (draining && !isPageAsset(c.req.raw))
      throw new ServeRequestError(
        503,
        "draining",
        "this server is stopping; retry (another server continues)",
        {
          headers: { "retry-after": "1" },
        },
      );
    await next();
  });

  // Before any token is looked at: a flood of bad tokens from one address is refused as cheaply as possible.
  const perAddress = new RateLimiter(limits.requestsPerMinutePerAddress);
  const byAddress: MiddlewareHandler<ServeEnv> = async (c, next) => {
    const address = options.clientAddress
      ? options.clientAddress(c.req.raw)
      : (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket
          ?.remoteAddress;
    if (address) perAddress.take(address);
    await next();
  };
  app.use("/api/*", byAddress);
  app.use("/trace/api/*", byAddress);

  app.post("/api/login", async (c) => {
    const token = bearerOf(c.req.raw);
    if (token === undefined || auth.tokenPrincipal(token) === undefined) throw unauthorized();
    const secure = new URL(c.req.url).protocol === "https:" ? "; Secure" : "";
    c.header(
      "set-cookie",
      `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/${secure}`,
    );
    return c.body(null, 204);
  });
  app.post("/api/logout", (c) => {
    c.header("set-cookie", `${TOKEN_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
    return c.body(null, 204);
  });

  const guard: MiddlewareHandler<ServeEnv> = async (c, next) => {
    const principal = await auth.principal(c.req.raw);
    if (!principal) throw unauthorized();
    rate.take(principal.id);
    c.set("principal", principal);
    await next();
  };
  app.use("/api/*", guard);
  app.use("/trace/api/*", guard);

  chatRoutes(app, ctx);
  runRoutes(app, ctx);
  aguiRoutes(app, ctx);
  const a2a = options.a2a ? a2aRoutes(app, ctx, options.a2a === true ? {} : options.a2a) : undefined;
  const mcp = options.mcp;
  if (mcp) app.all("/mcp", byAddress, (c) => mcp.fetch(c.req.raw));
  app.all("/api/*", () => {
    throw new ServeRequestError(404, "not_found", "no such route");
  });
  if (options.page !== false) pageRoutes(app, typeof options.page === "object" ? options.page : {});

  const listening = listenToLog(log, hub, runs).catch((error: unknown) => {
    console.error("glassloop serve: listening to the log failed (other processes' runs are polled):", error);
    return async () => {};
  });
  const ready = runs.start(options.recover !== false);
  ready.catch((error: unknown) => console.error("glassloop serve: resuming interrupted runs failed:", error));

  const drain = (withinMs = options.drainMs ?? 10_000): Promise<void> => {
    // Asked again (a second SIGTERM, or close during a drain): no more waiting for next steps.
    if (draining && withinMs === 0) runs.hurry();
    draining ??= (async () => {
      // Readers of runs driven elsewhere end now; those of runs driven here once each is handed over.
      hub.draining = true;
      hub.stop();
      await ready.catch(() => {});
      await runs.drain(withinMs);
    })();
    return draining;
  };

  return {
    fetch: async (request, env) => app.fetch(request, env),
    ready,
    stats: () => ({ runs: hub.size, streams: counters.streams, bytesSent: counters.bytesSent }),
    drain,
    close: async () => {
      await drain(0);
      await a2a?.close();
      await mcp?.close();
      await runs.settled();
      await (await listening)();
      if (ownsLog) await log.close();
    },
  };
}

/** The chat page and the viewer's files: still served while draining (they start nothing). */
function isPageAsset(request: Request): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  const path = new URL(request.url).pathname;
  return (
    !path.startsWith("/api/") &&
    !path.startsWith("/trace/api/") &&
    !path.startsWith("/a2a") &&
    path !== "/mcp"
  );
}

function unauthorized(): ServeRequestError {
  return new ServeRequestError(
    401,
    "unauthorized",
    "a valid bearer token (or the login cookie) is required",
    {
      headers: { "www-authenticate": 'Bearer realm="glassloop"' },
    },
  );
}
