/**
 * Real worker processes for the scale-out tests: `glassloop worker` started with the CLI on the
 * test module, in a database of its own on the shared test Postgres, with low lease and polling
 * intervals so failover takes about two seconds instead of fifteen.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ScaleClient } from "glassloop/scale";
import { loadPg, type PgPoolConfig } from "../../src/store/postgres/pg-driver.js";
import { bundleChildren } from "../helpers/bundle-child.js";
import { CLI_MAIN, cleanEnv } from "../helpers/cli.js";
import { postgresUrl } from "../helpers/postgres.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";
import { scriptedReply } from "./scale-script.js";

/** The worker module every test worker loads. */
export const WORKER_MODULE = fileURLToPath(new URL("./fixtures/worker-module.ts", import.meta.url));

/** Test timing: lease 2 s, dead workers looked for every 250 ms, the queue polled every 50 ms. */
export const TIMING = { leaseMs: 2_000, adoptEveryMs: 250, pollMs: 50 } as const;

let databases = 0;

/** The CLI and the worker module, bundled together (one copy of glassloop between them). */
let bundled: { cli: string; module: string } | undefined;

/**
 * Bundles the CLI and the worker module for `spawnWorker` (once per test file): a worker started
 * from sources through tsx spends about 1.5 s of CPU loading them, and these tests start dozens.
 */
export async function prepareWorkers(): Promise<void> {
  const [cli, module] = await bundleChildren([CLI_MAIN, WORKER_MODULE]);
  bundled = { cli: cli as string, module: module as string };
}

/** A database no other test uses, on the shared test server (DBOS's tables and ours start empty). */
export async function freshDatabase(): Promise<string> {
  const base = await postgresUrl();
  const pg = loadPg();
  const name = `scale_${process.pid}_${Date.now().toString(36)}_${++databases}`;
  const admin = new pg.Pool({ connectionString: base, max: 1 } as PgPoolConfig);
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A worker process. */
export interface TestWorker {
  name: string;
  child: ChildProcess;
  /** Resolves once the worker consumes the queue; rejects if it exits first. */
  ready: Promise<void>;
  /** Resolves with the exit code (or the signal) when the process is gone. */
  exited: Promise<number | string>;
  stderr(): string;
}

/** Starts `glassloop worker` named `name` (its executor id, and its path on the wire server). */
export function spawnWorker(
  name: string,
  options: {
    url: string;
    wireUrl: string;
    effects: string;
    toolMs?: number;
    concurrency?: number;
    id?: string;
  },
): TestWorker {
  if (!bundled) throw new Error("spawnWorker: await prepareWorkers() first");
  const args = [
    bundled.cli,
    "worker",
    bundled.module,
    "--postgres",
    options.url,
    "--id",
    options.id ?? name,
    "--concurrency",
    String(options.concurrency ?? 4),
    "--lease-ms",
    String(TIMING.leaseMs),
    "--adopt-ms",
    String(TIMING.adoptEveryMs),
    "--poll-ms",
    String(TIMING.pollMs),
  ];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: cleanEnv({
      SCALE_WIRE_URL: options.wireUrl,
      SCALE_EFFECTS_FILE: options.effects,
      SCALE_WORKER_NAME: name,
      SCALE_TOOL_MS: String(options.toolMs ?? 0),
    }),
  });
  return watchWorker(name, child);
}

/** Follows a started worker process: ready once it consumes its queue, its exit, its stderr. */
export function watchWorker(name: string, child: ChildProcess): TestWorker {
  let stderr = "";
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "?")),
  );
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
      if (stderr.includes("consuming queue")) resolve();
    });
    void exited.then((code) =>
      reject(new Error(`worker ${name} exited (${code}) before it was ready: ${stderr}`)),
    );
  });
  ready.catch(() => {});
  return { name, child, ready, exited, stderr: () => stderr };
}

/** One line of the effects log the worker module writes. */
export interface EffectLine {
  kind: "effect" | "returned" | "refund" | "hold" | "guard" | "deploy" | "asked" | "answered";
  run: string;
  call?: string;
  /** On a `deploy` line: where to. */
  env?: string;
  /** On a `hold` line: the runs the worker held at once, this one included. */
  holding?: number;
  worker: string;
  at: number;
}

/** The effects log as written so far. */
export function readEffects(file: string): EffectLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as EffectLine);
}

/** What a scale test file runs against: its own database, the scripted model server, a client. */
export interface ScaleSetup {
  url: string;
  wire: WireServer;
  client: ScaleClient;
}

/**
 * The workers bundled, a fresh database, a wire server answering `scriptedReply` at once, and a
 * client polling every 50 ms: each file then starts the workers it needs.
 */
export async function startScaleSetup(): Promise<ScaleSetup> {
  await prepareWorkers();
  const url = await freshDatabase();
  const wire = await startWireServer();
  wire.handler = (request) => scriptedReply(request, 0);
  const { ScaleClient } = await import("glassloop/scale");
  return { url, wire, client: await ScaleClient.connect({ url, pollMs: 50 }) };
}

/** A fresh file the test workers append their side effects to (`readEffects`). */
export function effectsFile(prefix: string): string {
  return join(mkdtempSync(join(tmpdir(), prefix)), "effects.log");
}
