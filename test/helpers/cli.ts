/** Runs the real `glassloop` binary (src/cli/main.ts through tsx) as a child process. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { startWireServer, type WireServer } from "./wire-server.js";

/** The CLI's entry point. */
export const CLI_MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** The command line that starts `glassloop <args>` from any working directory. */
export function cliArgv(...args: string[]): string[] {
  return [process.execPath, "--import", TSX_LOADER, CLI_MAIN, ...args];
}

/** An environment with no provider keys or model settings from the outside, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ["PATH", "HOME", "LANG", "TMPDIR"]) if (process.env[name]) env[name] = process.env[name];
  // Port 9 (discard) has no Ollama; an empty models directory has no downloaded GGUF.
  const models = join(tmpdir(), "glassloop-test-no-models");
  return { ...env, OLLAMA_HOST: "127.0.0.1:9", GLASSLOOP_MODELS_DIR: models, NO_COLOR: "1", ...extra };
}

/** A fresh temporary working directory. */
export function tempCwd(prefix = "glassloop-cli-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** What a finished CLI process printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `glassloop <args>` to completion with stdin from `input` (closed at once when absent). */
export function runCli(
  args: string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    input?: string;
    timeoutMs?: number;
    /** Gets the child process (to kill it mid-run, by its own pid). */
    onStart?: (child: ChildProcess) => void;
  },
): Promise<CliRun> {
  const [command, ...rest] = cliArgv(...args) as [string, ...string[]];
  const child = spawn(command, rest, { cwd: options.cwd, env: options.env, stdio: "pipe" });
  options.onStart?.(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString("utf8");
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  child.stdin.end(options.input ?? "");
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/**
 * A wire server for one test file, started before its tests, reset between them and closed after,
 * with the environment that points `glassloop` at it as an OpenAI-compatible provider.
 */
export function useWireServer(key: string): {
  readonly server: WireServer;
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
} {
  let server: WireServer | undefined;
  beforeAll(async () => {
    server = await startWireServer();
  });
  afterAll(() => server?.close());
  beforeEach(() => server?.reset());
  const current = () => {
    if (!server) throw new Error("useWireServer: the server starts in beforeAll");
    return server;
  };
  return {
    get server() {
      return current();
    },
    env: (extra = {}) => cleanEnv({ OPENAI_API_KEY: key, OPENAI_BASE_URL: `${current().url}/v1`, ...extra }),
  };
}
