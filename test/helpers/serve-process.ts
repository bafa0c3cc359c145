import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * `glassloop serve <module> --port 0 --db <db> --log <log> ...extra` from the sources, in a child process
 * (so a test can SIGKILL it mid-run); resolves with the URL it prints once it listens, rejects
 * with its stderr if it exits first. The caller kills the child.
 */
export async function startServeProcess(
  module: string,
  db: string,
  log: string,
  env: Record<string, string>,
  extra: readonly string[] = [],
): Promise<{ url: string; child: ChildProcess; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/cli/main.ts",
      "serve",
      module,
      "--port",
      "0",
      "--db",
      db,
      "--log",
      log,
      ...extra,
    ],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      const m = / on (http:\/\/\S+\/)/.exec(err);
      if (m) resolve(m[1] as string);
    });
    child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  }).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  return { url, child, stderr: () => err };
}
