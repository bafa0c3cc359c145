import { parseArgs } from "node:util";
import { type CliIO, type Command, EXIT, UsageError } from "../command.js";
import { importUserModule } from "../user-module.js";

const USAGE = `Usage: glassloop mcp serve <agent module> [--export name] [--tool-name name] [--description text]

Serves an agent as an MCP tool over stdio, so other MCP clients (Claude Desktop, IDEs, another
glassloop agent) can call it. The module's default export (or --export) is an Agent, or a function
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
    const { serveAgentOverStdio } = await import("../../mcp/server.js");
    await serveAgentOverStdio(agent as Parameters<typeof serveAgentOverStdio>[0], {
      ...(parsed.values["tool-name"] && { toolName: parsed.values["tool-name"] }),
      ...(parsed.values.description && { description: parsed.values.description }),
    });
    return EXIT.ok;
  },
};
export default mcp;

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { export: { type: "string" }, "tool-name": { type: "string" }, description: { type: "string" } },
  });
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
