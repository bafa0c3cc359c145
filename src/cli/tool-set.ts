import { resolve } from "node:path";
import { ToolError } from "../errors.js";
import { BUILTIN_TOOLS, type BuiltinEntry, type BuiltinName } from "../tools/builtin/index.js";
import type { Tool } from "../tools/tool.js";
import type { Approver } from "./approval.js";
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

/** The tools for `names`, with every call that needs approval put before `approver` first. */
export function buildTools(
  names: readonly BuiltinName[],
  options: { cwd: string; config: CliConfig; root?: string },
  approver: Approver,
): Tool<never, unknown, unknown>[] {
  const root = resolve(options.cwd, options.root ?? options.config.root ?? ".");
  const shared = { root, ...(options.config.http && { http: options.config.http }) };
  return names.flatMap((name) => {
    const entry: BuiltinEntry = BUILTIN_TOOLS[name];
    return entry.create(shared).map((t) => (entry.needsApproval.includes(t.name) ? gated(t, approver) : t));
  });
}

/**
 * `t`, asking a human first. The wait for an answer must not count against the tool's timeout,
 * so the copy has none and applies the original one only once the call is approved.
 */
export function gated(t: Tool<never, unknown, unknown>, approver: Approver): Tool<never, unknown, unknown> {
  const timeoutMs = t.timeoutMs ?? 30_000;
  return Object.freeze({
    ...t,
    timeoutMs: Number.POSITIVE_INFINITY,
    run: async (args: never, options: Parameters<typeof t.run>[1]) => {
      if (!(await approver({ toolName: t.name, args, signal: options.signal })))
        throw new ToolError("Not approved by the user.");
      const controller = new AbortController();
      const onAbort = () => controller.abort(options.signal.reason);
      options.signal.addEventListener("abort", onAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          Promise.resolve(t.run(args, { ...options, signal: controller.signal })),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              controller.abort();
              reject(new ToolError(`Tool ${t.name} timed out after ${timeoutMs} ms.`));
            }, timeoutMs);
          }),
        ]);
      } finally {
        clearTimeout(timer);
        options.signal.removeEventListener("abort", onAbort);
      }
    },
  });
}
