/**
 * `npm test`: the type check and the lint run beside vitest instead of before it, at a lower CPU
 * priority, so they fill the moments the tests wait (on child processes, servers, timers) rather
 * than adding a minute in front of them. Their output is printed after vitest's, in one piece. The
 * library is built first when its sources changed (a no-op after `npm ci`), so the CLI tests run
 * the bundle; the package test would build it later anyway. Arguments go to vitest
 * (`npm test -- test/cli`). Exits non-zero when any part failed.
 */

import { spawn } from "node:child_process";
import { setPriority } from "node:os";
import { buildStale } from "./build.js";

/** What one part printed, and how it ended. */
interface Outcome {
  name: string;
  code: number;
  output: string;
  seconds: number;
}

/** Runs `npm run <script>` in the background at low priority, its output kept for later. */
function background(script: string): Promise<Outcome> {
  const started = performance.now();
  const child = spawn("npm", ["run", "--silent", script], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? "1" : "0" },
  });
  try {
    // Children (tsc, biome) inherit the priority of the npm that starts them.
    if (child.pid !== undefined) setPriority(child.pid, 10);
  } catch {
    // Not permitted here: it still runs, only at the same priority as the tests.
  }
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  return new Promise((resolve) => {
    child.on("close", (code, signal) =>
      resolve({
        name: script,
        code: code ?? (signal ? 1 : 0),
        output,
        seconds: (performance.now() - started) / 1000,
      }),
    );
  });
}

function vitest(args: string[]): Promise<number> {
  const child = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...args], {
    stdio: "inherit",
  });
  return new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

let buildFailed = false;
try {
  buildStale(["lib"]);
} catch (error) {
  // The tests then run the sources (and the package test reports the build); the run still fails.
  buildFailed = true;
  console.error(`glassloop build failed: ${(error as Error).message}`);
}
const checks = (async () => [await background("typecheck"), await background("lint")])();
const tests = await vitest(process.argv.slice(2));
const outcomes = await checks;
for (const outcome of outcomes) {
  const verdict = outcome.code === 0 ? "passed" : `FAILED (exit ${outcome.code})`;
  console.log(`\nnpm run ${outcome.name}: ${verdict} in ${outcome.seconds.toFixed(1)} s`);
  if (outcome.code !== 0 || outcome.output.trim() !== "") console.log(outcome.output.trimEnd());
}
process.exit(tests !== 0 || buildFailed || outcomes.some((o) => o.code !== 0) ? 1 : 0);
