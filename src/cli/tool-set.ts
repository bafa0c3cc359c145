import { resolve } from "node:path";
import { BUILTIN_TOOLS, type BuiltinEntry, type BuiltinName } from "../tools/builtin/index.js";
import type { Tool } from "../tools/tool.js";
import { UsageError } from "./command.js";
import type { CliConfig } from "./config.js";

/** The built-in tool names of `--tools a,b` (or the config's `tools`); an unknown name is a usage error. */
export function parseToolNames(flag: string | undefined, config: CliConfig): BuiltinName[] {
  const names = flag !== undefined ? flag.split(",") : (config.tools ?? []);
  const wanted = names.map((n) => n.trim()).filter((n) => n !== "" && n !== "none");
  for (const name of wanted) {
    if (!Object.hasOwn(BUILTIN_TOOLS, name)) {
      throw new UsageError(
        `unknown tool "${name}". Built-in tools: ${Object.keys(BUILTIN_TOOLS).join(", ")}`,
      );
    }
  }
  return [...new Set(wanted)] as BuiltinName[];
}

/** The tools for `names` (those that need approval declare it themselves: `needsApproval`). */
export function buildTools(
  names: readonly BuiltinName[],
  options: { cwd: string; config: CliConfig; root?: string },
): Tool<never, unknown, unknown>[] {
  const root = resolve(options.cwd, options.root ?? options.config.root ?? ".");
  const shared = {
    root,
    ...(options.config.http && { http: options.config.http }),
    ...(options.config.shell?.passEnv && { shell: { passEnv: options.config.shell.passEnv } }),
  };
  return names.flatMap((name) => {
    const entry: BuiltinEntry = BUILTIN_TOOLS[name];
    return entry.create(shared);
  });
}
