import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type CliIO, UsageError } from "./command.js";

/**
 * Imports a module the user points a command at (an agent for `mcp`, a worker for `worker`),
 * TypeScript included through tsx; a missing file or a missing tsx is a usage error of `command`.
 * `what` names the module in the error ("agent module", "worker module").
 */
export async function importUserModule(
  file: string,
  io: CliIO,
  command: string,
  what: string,
): Promise<Record<string, unknown>> {
  const path = resolve(io.cwd, file);
  if (!existsSync(path)) throw new UsageError(`${what} not found: ${path}`, command);
  if (/\.(c|m)?tsx?$/.test(path)) {
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
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}
