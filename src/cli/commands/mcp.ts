import { parseArgs } from "node:util";
import { type CliIO, type Command, EXIT, UsageError } from "../command.js";
import { importUserModule } from "../user-module.js";

const USAGE = `Usage: glassloop mcp serve <agent module> [--export name] [--tool-name name] [--description text]
                          [--http] [--port n] [--host addr] [--allowed-host name:port]...

Serves an agent as an MCP tool over stdio, so other MCP clients (Claude Desktop, IDEs, another
glassloop agent) can call it. With --http it serves streamable HTTP at http://host:port/mcp
instead (default 127.0.0.1 and a free port; the URL is printed on stderr); callers must send a
bearer token from GLASSLOOP_MCP_TOKENS (comma-separated) when it is set, and any --host other
than loopback needs --allowed-host (the Host names clients use, against DNS rebinding). The module's default export (or --export) is an Agent, or a function
returning one. TypeScript modules need tsx installed (npm i -D tsx); compiled .js needs nothing.
stdout belongs to the protocol: nothing else is written there.`;

/** What the module must provide: something with a name that runs tasks. */
interface LoadedAgent {
  name: string;
  run(input: string, options?: { signal?: AbortSignal }): Promise<{ output: unknown } & object>;
}

/** `glassloop mcp serve <module>`: serves an agent as an MCP tool over stdio. */
const mcp: Command = {
  usage: USAGE,
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub !== "serve") throw new UsageError(`unknown mcp command "${sub ?? ""}" (expected "serve")`, "mcp");
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(rest);
    } catch (error) {
      throw new UsageError((error as Error).message, "mcp");
    }
    const file = parsed.positionals[0];
    if (!file) throw new UsageError("mcp serve needs the path of a module that exports an agent", "mcp");
    const agent = await loadAgent(file, parsed.values.export ?? "default", io);
    const offer = {
      ...(parsed.values["tool-name"] && { toolName: parsed.values["tool-name"] }),
      ...(parsed.values.description && { description: parsed.values.description }),
    };
    if (parsed.values.http) return serveHttp(agent, offer, parsed.values, io);
    const { serveAgentOverStdio } = await import("../../mcp/server.js");
    await serveAgentOverStdio(agent as Parameters<typeof serveAgentOverStdio>[0], offer);
    return EXIT.ok;
  },
};
export default mcp;

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      export: { type: "string" },
      "tool-name": { type: "string" },
      description: { type: "string" },
      http: { type: "boolean" },
      port: { type: "string" },
      host: { type: "string" },
      "allowed-host": { type: "string", multiple: true },
    },
  });
}

/** `--http`: serves until SIGINT or SIGTERM, then closes the sessions. */
async function serveHttp(
  agent: LoadedAgent,
  offer: { toolName?: string; description?: string },
  values: ReturnType<typeof parse>["values"],
  io: CliIO,
): Promise<number> {
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port must be a port number, not ${JSON.stringify(values.port)}`, "mcp");
  const host = values.host ?? "127.0.0.1";
  const loopback = ["127.0.0.1", "localhost", "::1"].includes(host);
  if (!loopback && !values["allowed-host"])
    throw new UsageError(`--host ${host} needs --allowed-host with the name:port clients will use`, "mcp");
  const tokens = (process.env.GLASSLOOP_MCP_TOKENS ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const { serveAgentOverHttp } = await import("../../mcp/http-server.js");
  const running = await serveAgentOverHttp(agent as Parameters<typeof serveAgentOverHttp>[0], {
    ...offer,
    port,
    host,
    ...(values["allowed-host"] && { allowedHosts: values["allowed-host"] }),
    ...(tokens.length > 0 && { tokens }),
  });
  io.stderr.write(
    `MCP server for "${agent.name}" at ${running.url}${tokens.length > 0 ? " (bearer tokens required)" : ""}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await running.close();
  return EXIT.ok;
}

async function loadAgent(file: string, exportName: string, io: CliIO): Promise<LoadedAgent> {
  const module = await importUserModule(file, io, "mcp", "agent module");
  let value = module[exportName];
  if (typeof value === "function" && !isAgent(value)) value = await (value as () => unknown)();
  if (!isAgent(value)) {
    throw new UsageError(
      `${file}: export "${exportName}" is not an agent (an object with name and run())`,
      "mcp",
    );
  }
  return value;
}

function isAgent(value: unknown): value is LoadedAgent {
  const candidate = value as Partial<LoadedAgent> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.run === "function" &&
    typeof candidate.name === "string"
  );
}
