/**
 * Runs the real `glassloop` binary as a child process: the bundle `npm ci` and `npm run build` make
 * (dist/cli/main.mjs) when it is built from the current sources, src/cli/main.ts through tsx when
 * it is not (a source edited since the last build). Both are the same program; the bundle starts
 * in about a third of the CPU time, which the suite's hundred-odd CLI runs add up.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { upToDate } from "../../scripts/build.js";
import { startWireServer, type WireServer } from "./wire-server.js";

/** The CLI's entry point in the sources. */
export const CLI_MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const BUILT_MAIN = fileURLToPath(new URL("../../dist/cli/main.mjs", import.meta.url));
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

// Decided once per test file: a build that starts meanwhile (the package test's prepack) removes
// dist/ before it writes it again, and the stamp it checks is written last.
let built: boolean | undefined;
const useBuilt = () => {
  built ??= process.env.GLASSLOOP_TEST_CLI !== "src" && upToDate("lib");
  return built;
};

/** The command line that starts `glassloop <args>` from any working directory (see the file's comment). */
export function cliArgv(...args: string[]): string[] {
  return useBuilt() ? [process.execPath, BUILT_MAIN, ...args] : srcCliArgv(...args);
}

/**
 * `glassloop <args>` from the sources through tsx, always: for a process that loads a TypeScript
 * module of the tests which imports `glassloop` (tsconfig's paths take it to src/, so the CLI must
 * come from there too, or the process would hold two copies).
 */
export function srcCliArgv(...args: string[]): string[] {
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
    /** Run the sources through tsx even when the bundle is built (see `srcCliArgv`). */
    src?: boolean;
  },
): Promise<CliRun> {
  const [command, ...rest] = (options.src ? srcCliArgv : cliArgv)(...args) as [string, ...string[]];
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
