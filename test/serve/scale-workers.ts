/**
 * Serving with scale-out workers in the tests: real `glassloop worker` processes on the serve
 * fixture module (test/serve/fixtures/scale-module.ts, the same module the server serves), a
 * fresh database each, and handlers that enqueue onto them (`createHandler({ scale })`).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { bundleChildren } from "../helpers/bundle-child.js";
import { CLI_MAIN, cleanEnv } from "../helpers/cli.js";
import { type TestWorker, TIMING, watchWorker } from "../scale/scale-harness.js";

/** The module both sides load. */
export const SCALE_MODULE = fileURLToPath(new URL("./fixtures/scale-module.ts", import.meta.url));

let bundled: { cli: string; module: string } | undefined;

/** Bundles the CLI and the module once per test file (a bundle starts in a fraction of tsx's time). */
export async function prepareScaleWorkers(): Promise<void> {
  const [cli, module] = await bundleChildren([CLI_MAIN, SCALE_MODULE]);
  bundled = { cli: cli as string, module: module as string };
}

/** Starts `glassloop worker <module>` as executor `name`, with the test's short lease and polling. */
export function spawnScaleWorker(name: string, url: string, env: Record<string, string>): TestWorker {
  if (!bundled) throw new Error("spawnScaleWorker: await prepareScaleWorkers() first");
  const args = [
    bundled.cli,
    "worker",
    bundled.module,
    "--postgres",
    url,
    "--id",
    name,
    "--lease-ms",
    String(TIMING.leaseMs),
    "--adopt-ms",
    String(TIMING.adoptEveryMs),
    "--poll-ms",
    String(TIMING.pollMs),
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: cleanEnv(env) });
  return watchWorker(name, child);
}

/** One SSE event as the tests read it. */
export interface SseEvent {
  id?: string;
  data: string;
}

/** The JSON chunks of a UI message stream (without `[DONE]`). */
export function chunksOf(events: readonly SseEvent[]): { type: string; [key: string]: unknown }[] {
  return events.filter((e) => e.data.startsWith("{")).map((e) => JSON.parse(e.data));
}

/** The text deltas of a UI message stream, joined. */
export function textOf(events: readonly SseEvent[]): string {
  return chunksOf(events)
    .filter((c) => c.type === "text-delta")
    .map((c) => c.delta as string)
    .join("");
}

/** The sequence numbers of the events' ids (`<runId>/<seq>`), in order. */
export function seqsOf(events: readonly SseEvent[]): number[] {
  return events.flatMap((e) => (e.id === undefined ? [] : [Number(e.id.split("/")[1])]));
}

/** `glassloop serve <module> --scale <url>` in a child process (so a test can SIGKILL it), once it listens. */
export async function spawnScaleServer(
  url: string,
  db: string,
  env: Record<string, string>,
): Promise<{ url: string; child: ReturnType<typeof spawn> }> {
  if (!bundled) throw new Error("spawnScaleServer: await prepareScaleWorkers() first");
  const args = [
    bundled.cli,
    "serve",
    bundled.module,
    "--port",
    "0",
    "--db",
    db,
    "--log",
    url,
    "--scale",
    url,
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], env: cleanEnv(env) });
  let stderr = "";
  try {
    const listening = await new Promise<string>((resolve, reject) => {
      child.stderr?.on("data", (d: Buffer) => {
        stderr += d.toString("utf8");
        const m = / on (http:\/\/\S+\/)/.exec(stderr);
        if (m) resolve(m[1] as string);
      });
      child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    return { url: listening, child };
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
}
