import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type CliIO, UsageError } from "./command.js";

/**
 * Imports a module the user points a command at (an agent for `mcp` and `trace replay --agent`, a
 * worker for `worker`, an eval for `eval`), TypeScript included through tsx; a missing file, a
 * missing tsx or a module Node would load as CommonJS is a usage error of `command` that says what
 * to change. `what` names the module in the error ("agent module", "worker module", "eval file").
 */
export async function importUserModule(
  file: string,
  io: CliIO,
  command: string,
  what: string,
): Promise<Record<string, unknown>> {
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) throw new UsageError(`${what} not found: ${path}`, command);
  // glassloop is ES modules only. A CommonJS module would require() its own second copy of
  // glassloop (another provider registry, other error classes) or fail to load it at all, so it is
  // refused here, before anything runs, with the change that makes it load.
  const format = moduleFormat(path);
  if (format.kind === "commonjs") {
    throw new UsageError(
      `${file} would load as CommonJS (${format.why}), and glassloop is ES modules only: ` + `${format.fix}`,
      command,
    );
  }
  // Under tsx already (`npm run glassloop`, `npx tsx …`): a second registration would only add a layer.
  const underTsx = process.execArgv.some((arg) => /[\\/]tsx[\\/]|^tsx$/.test(arg));
  if (/\.(c|m)?tsx?$/.test(path) && !underTsx) {
    try {
      const { register } = await import("tsx/esm/api");
      register();
    } catch {
      throw new UsageError(
        `${file} is TypeScript: install tsx (npm i -D tsx) or point at compiled JavaScript`,
        command,
      );
    }
  }
  try {
    return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    // A .js file Node took for CommonJS by its syntax, whose require() met ES-modules-only glassloop.
    const code = (error as NodeJS.ErrnoException).code;
    // The module imports glassloop (or zod…) where no node_modules above it has it: the
    // command's own copy cannot stand in, so the user installs it beside the module.
    const missing = /Cannot find package '([^']+)' imported from/.exec((error as Error).message ?? "")?.[1];
    if (code === "ERR_MODULE_NOT_FOUND" && missing !== undefined) {
      throw new UsageError(
        `${file} (or a module it imports) needs "${missing}", which is not installed where it can find it: npm i ${missing} in the module's project (the folder of its package.json)`,
        command,
      );
    }
    if (code !== undefined && REQUIRE_OF_ESM.has(code)) {
      throw new UsageError(
        `${file} loaded as CommonJS and could not require() glassloop, which is ES modules only (${code}): ` +
          `write it with import/export and add "type": "module" to its package.json, or rename it to .mjs`,
        command,
      );
    }
    throw error;
  }
}

/** What Node says when CommonJS code requires an ES-modules-only package. */
const REQUIRE_OF_ESM = new Set([
  "ERR_REQUIRE_ESM",
  "ERR_REQUIRE_CYCLE_MODULE",
  "ERR_PACKAGE_PATH_NOT_EXPORTED",
]);

/** How Node (and tsx) will load a file: by its extension, else by the nearest package.json's `type`. */
export function moduleFormat(
  path: string,
): { kind: "module" } | { kind: "commonjs"; why: string; fix: string } {
  const ext = extname(path);
  if (ext === ".mjs" || ext === ".mts") return { kind: "module" };
  const esmExt = /^\.c?tsx?$/.test(ext) ? ".mts" : ".mjs";
  if (ext === ".cjs" || ext === ".cts") {
    return { kind: "commonjs", why: `its extension is ${ext}`, fix: `rename it to ${esmExt}` };
  }
  const pkg = nearestPackageJson(dirname(path));
  if (pkg?.type === "module") return { kind: "module" };
  // Node 20.19+ takes a .js file whose package.json says nothing for ES modules when its syntax is
  // (import/export); tsx compiles such a .ts file to CommonJS, so TypeScript needs the word.
  if (pkg?.type === undefined && (ext === ".js" || ext === ".jsx")) return { kind: "module" };
  const why = pkg
    ? `${pkg.path} ${pkg.type === undefined ? "has no" : `says "type": ${JSON.stringify(pkg.type)}, not`} "type": "module"`
    : `no package.json above it says "type": "module"`;
  const where = pkg ? `to ${pkg.path}` : "to a package.json beside it";
  return { kind: "commonjs", why, fix: `add "type": "module" ${where}, or rename it to ${esmExt}` };
}

function nearestPackageJson(start: string): { path: string; type?: unknown } | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const path = join(dir, "package.json");
    if (existsSync(path)) {
      try {
        return { path, type: (JSON.parse(readFileSync(path, "utf8")) as { type?: unknown }).type };
      } catch {
        // Node stops at an unreadable package.json too (and then fails on it): no "type" here.
        return { path };
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Imports a module that names its agents as factories (a worker module, a serve module), checks
 * its shape and returns it: `export default { agents: { name: () => AgentConfig } }`, or the same
 * object as the named export `exportName`.
 */
export async function importAgentsModule<M extends { agents: object }>(
  file: string,
  io: CliIO,
  command: string,
  exportName: string,
): Promise<M> {
  const loaded = await importUserModule(file, io, command, `${command} module`);
  const value = loaded.default ?? loaded[exportName];
  const agents = (value as { agents?: unknown } | null)?.agents;
  if (typeof value !== "object" || value === null || typeof agents !== "object" || agents === null)
    throw new UsageError(
      `${file}: the default export (or "${exportName}") must be { agents: { name: () => AgentConfig } }`,
      command,
    );
  for (const [name, factory] of Object.entries(agents))
    if (typeof factory !== "function")
      throw new UsageError(
        `${file}: agents.${name} must be a function that returns the agent's config`,
        command,
      );
  return value as M;
}
