import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import type { ServeModule } from "../../serve/serve-module.js";
import { type CliIO, type Command, EXIT, UsageError } from "../command.js";
import { serveMcpMount } from "../serve-mcp.js";
import { importAgentsModule } from "../user-module.js";

const USAGE = `Usage: glassloop serve <module> [--port n] [--host addr] [--db path] [--log path] [--drain-ms n]
                        [--mcp agent] [--mcp-allowed-host name:port]... [--scale url [--queue name]]

Serves the module's agents over HTTP (docs/serve.md): the chat page at /, the AI SDK UI message
stream for useChat at /api/chat, AG-UI at /api/agui/<agent>, the trace viewer at /trace/.
The module's default export (or its export "serve") is { agents: { name: () => AgentConfig },
options?: { auth, cors, limits, ... } } (see defineServe in glassloop/serve).

  --port n       the port (default 8787; 0 picks a free one)
  --host addr    the address to listen on (default 127.0.0.1: this machine only)
  --db path      the store of runs and sessions (default GLASSLOOP_DB or .glassloop/glassloop.db),
                 or a postgres:// URL
  --log path     the serve log: streams, chats, approvals (default .glassloop/serve.db), or a
                 postgres:// URL: several serve processes on one Postgres share their runs
  --drain-ms n   on SIGTERM, how long runs may take to reach their next step before they are
                 handed over mid-step (default 10000, or the module's options.drainMs)
  --mcp agent    also serve that agent as an MCP tool over streamable HTTP at /mcp (docs/mcp.md);
                 callers send a bearer token from GLASSLOOP_MCP_TOKENS, else one the API accepts
  --mcp-allowed-host name:port
                 a Host name MCP clients may use besides loopback (DNS-rebinding protection)
  --scale url    run each turn on scale-out workers (glassloop worker) whose database is this
                 postgres:// URL, instead of in this process; the workers load the same module
  --queue name   with --scale: the queue the workers consume (default glassloop)

Callers authenticate with a bearer token from GLASSLOOP_SERVE_TOKENS (comma-separated,
name=token), or the module's options.auth. With neither, a token is made for this process and
the page's URL carrying it is printed. Stops on SIGINT or SIGTERM by draining: new requests get
503, each run in progress is handed over at its next step (another serve process on the log
continues it at once; with none, the next one to start resumes it) and open streams end so their
clients reconnect. A second signal hands the rest over at once and exits.`;

/** `glassloop serve <module>`: the HTTP server of the module's agents. */
const serve: Command = {
  usage: USAGE,
  async run(args, io) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      throw new UsageError((error as Error).message, "serve");
    }
    const file = parsed.positionals[0];
    if (!file) throw new UsageError("serve needs the path of a module that exports { agents }", "serve");
    const module = await loadServeModule(file, io);
    const v = parsed.values;
    const port = v.port === undefined ? 8787 : whole(v.port, "--port");
    if (v.scale !== undefined && !/^postgres(ql)?:\/\//i.test(v.scale))
      throw new UsageError("--scale needs the workers' postgres:// URL", "serve");
    if (v.queue !== undefined && v.scale === undefined)
      throw new UsageError("--queue goes with --scale", "serve");
    const [{ createHandler }, { startServer }] = await Promise.all([
      import("../../serve/handler.js"),
      import("../../serve/node-server.js"),
    ]);
    const options = module.options ?? {};
    let token: string | undefined;
    let auth = options.auth;
    if (auth === undefined && !io.env.GLASSLOOP_SERVE_TOKENS) {
      token = randomBytes(24).toString("base64url");
      auth = { tokens: { local: token } };
    }
    if (v["mcp-allowed-host"] && v.mcp === undefined)
      throw new UsageError("--mcp-allowed-host needs --mcp <agent>", "serve");
    const mcp =
      v.mcp === undefined
        ? undefined
        : await serveMcpMount(module, v.mcp, auth, io.env, v["mcp-allowed-host"]);
    const store = options.store === undefined && v.db !== undefined ? await openStore(v.db) : undefined;
    const handler = createHandler({
      ...options,
      agents: module.agents,
      ...(auth !== undefined && { auth }),
      ...(store !== undefined && { store }),
      ...(v.log !== undefined && { log: v.log }),
      ...(mcp && { mcp: mcp.handler }),
      ...(v.scale !== undefined && {
        scale: { url: v.scale, ...(v.queue !== undefined && { queue: v.queue }) },
      }),
    });
    const server = await startServer({ handler, port, host: v.host ?? "127.0.0.1" });
    const names = Object.keys(module.agents).join(", ");
    if (mcp && v.mcp !== undefined)
      io.stderr.write(
        `glassloop serve: MCP server for "${v.mcp}" at ${server.url}mcp${mcp.tokens ? " (bearer tokens required)" : ""}\n`,
      );
    if (v.scale !== undefined)
      io.stderr.write(
        `glassloop serve: each turn goes to the scale-out workers (queue ${v.queue ?? "glassloop"})\n`,
      );
    io.stderr.write(`glassloop serve: ${names} on ${server.url}\n`);
    io.stdout.write(
      token
        ? `Open ${server.url}#token=${token}\n`
        : `Open ${server.url} (log in with a token from GLASSLOOP_SERVE_TOKENS)\n`,
    );
    const drainMs = v["drain-ms"] === undefined ? (options.drainMs ?? 10_000) : wait(v["drain-ms"]);
    const signal = () =>
      new Promise<void>((done) => {
        process.once("SIGINT", done);
        process.once("SIGTERM", done);
      });
    await signal();
    io.stderr.write(
      `glassloop serve: draining: handing runs over (up to ${drainMs} ms; a second signal hands them over now)\n`,
    );
    // However the database behaves, the process exits: a run left unreleased is taken once its lease ends.
    setTimeout(() => process.exit(EXIT.failed), drainMs + 15_000).unref();
    void signal().then(() => {
      io.stderr.write("glassloop serve: handing runs over now\n");
      setTimeout(() => process.exit(EXIT.failed), 10_000).unref();
      return handler.drain(0);
    });
    await handler.drain(drainMs);
    io.stderr.write("glassloop serve: stopping\n");
    await server.close();
    await store?.close();
    await mcp?.close();
    await module.close?.();
    return EXIT.ok;
  },
};
export default serve;

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      db: { type: "string" },
      log: { type: "string" },
      mcp: { type: "string" },
      "mcp-allowed-host": { type: "string", multiple: true },
      scale: { type: "string" },
      queue: { type: "string" },
      "drain-ms": { type: "string" },
    },
  });
}

/** The store `--db` names: a Postgres URL or a SQLite file. */
async function openStore(location: string) {
  if (/^postgres(ql)?:\/\//i.test(location)) {
    const { PostgresStore } = await import("../../store/postgres/postgres-store.js");
    return PostgresStore.connect({ url: location });
  }
  const { SqliteStore } = await import("../../store/sqlite/sqlite-store.js");
  return new SqliteStore({ path: location });
}

function wait(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 3_600_000)
    throw new UsageError(`--drain-ms must be a number of milliseconds, not ${JSON.stringify(text)}`, "serve");
  return n;
}

function whole(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65_535)
    throw new UsageError(`${flag} must be a port number, not ${JSON.stringify(text)}`, "serve");
  return n;
}

/** Imports a serve module (TypeScript through tsx) and checks its shape. */
export function loadServeModule(file: string, io: CliIO): Promise<ServeModule> {
  return importAgentsModule<ServeModule>(file, io, "serve", "serve");
}
