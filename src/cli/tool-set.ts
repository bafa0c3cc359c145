import { resolve } from "node:path";
import { z } from "zod";
import type { StoredRun } from "../store/store.js";
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

/** The tools of `names` (those that need approval declare it themselves: `needsApproval`). */
function builtTools(
  names: readonly BuiltinName[],
  root: string,
  http: CliConfig["http"],
): Tool<never, unknown, unknown>[] {
  const shared = { root, ...(http && { http }) };
  return names.flatMap((name) => {
    const entry: BuiltinEntry = BUILTIN_TOOLS[name];
    return entry.create(shared);
  });
}

/**
 * How the CLI built a run's tools, stored with the run (`toolSetup`) so `--resume` rebuilds
 * exactly these: the groups, the root they work in, the HTTP settings. None of it is a secret.
 */
const setupSchema = z.strictObject({
  cli: z.literal(1),
  groups: z.array(z.enum(Object.keys(BUILTIN_TOOLS) as [BuiltinName, ...BuiltinName[]])),
  root: z.string(),
  http: z
    .strictObject({
      allowPrivateNetworks: z.boolean().optional(),
      allowedHosts: z.array(z.string()).optional(),
      maxBytes: z.number().int().positive().optional(),
      timeoutMs: z.number().positive().optional(),
    })
    .optional(),
});

/** The CLI's record of how it built a run's tools. */
export type CliToolSetup = z.output<typeof setupSchema>;

/** The tools of a run, and how to store and resume them. */
export interface ToolChoice {
  groups: BuiltinName[];
  tools: Tool<never, unknown, unknown>[];
  setup: CliToolSetup;
  /** Resume may offer tools beyond the run's record (the user named them for a run without one). */
  allowNewTools: boolean;
  /** Something the user should be told about the choice. */
  note?: string;
}

/**
 * The tools of a new run (from `--tools`/`--root`/the config), or of a resumed one: exactly what
 * its record says it started with, never what its transcript mentions (a model can name any tool).
 */
export function chooseTools(
  flags: { tools?: string | undefined; root?: string | undefined },
  config: CliConfig,
  cwd: string,
  resumed?: StoredRun,
): ToolChoice {
  if (!resumed) {
    const groups = parseToolNames(flags.tools, config);
    const root = resolve(cwd, flags.root ?? config.root ?? ".");
    const setup: CliToolSetup = { cli: 1, groups, root, ...(config.http && { http: config.http }) };
    return { groups, tools: builtTools(groups, root, config.http), setup, allowNewTools: false };
  }
  const parsed = setupSchema.safeParse(resumed.tools?.setup);
  if (parsed.success) {
    if (flags.tools !== undefined || flags.root !== undefined) {
      throw new UsageError(
        `--resume rebuilds the tools run ${resumed.runId} started with (${describe(parsed.data.groups)} in ${parsed.data.root}): give no --tools or --root`,
      );
    }
    const { groups, root, http } = parsed.data;
    return { groups, tools: builtTools(groups, root, http), setup: parsed.data, allowNewTools: false };
  }
  // No record (an older glassloop, or a run started by library code): only what the user names now.
  const groups = flags.tools === undefined ? [] : parseToolNames(flags.tools, {});
  const root = resolve(cwd, flags.root ?? config.root ?? ".");
  const setup: CliToolSetup = { cli: 1, groups, root, ...(config.http && { http: config.http }) };
  return {
    groups,
    tools: builtTools(groups, root, config.http),
    setup,
    allowNewTools: groups.length > 0,
    note:
      `run ${resumed.runId} has no record of the CLI tools it started with; ` +
      (groups.length > 0
        ? `resuming with --tools ${groups.join(",")} as you asked`
        : "resuming with no tools (name them with --tools to offer some)"),
  };
}

function describe(groups: readonly string[]): string {
  return groups.length > 0 ? groups.join(", ") : "no tools";
}
