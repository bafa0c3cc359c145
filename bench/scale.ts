/**
 * `npm run bench -- scale`: what running agents as DBOS workflows costs. On a throwaway local
 * cluster with the server's default durability: the per-step overhead of no durability, SQLite
 * checkpoints and DBOS steps; the throughput of a zero-latency agent with 1, 2 and 4 worker
 * processes; the failover time after a SIGKILL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Agent, tool } from "glassloop";
import { type ScaleClient, startWorker } from "glassloop/scale";
import { SqliteStore } from "glassloop/store";
import { z } from "zod";
import { loadPg, type PgPoolConfig } from "../src/store/postgres/pg-driver.js";
import { postgresInstalled, startCluster } from "../test/helpers/postgres-cluster.js";
import { type BenchTable, round } from "./table.js";
import { ZeroLatencyModel } from "./zero-model.js";

const MODULE = fileURLToPath(new URL("./scale-worker.ts", import.meta.url));
const CLI = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const BARE = fileURLToPath(new URL("./scale-bare.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const STEPS = 50;
const TIMING = { leaseMs: 2_000, adoptEveryMs: 250, pollMs: 50 };

const echo = tool({
  name: "echo",
  description: "Returns its argument.",
  input: z.object({ i: z.number() }),
  idempotent: true,
  run: ({ i }) => i,
});

async function database(base: string, name: string): Promise<string> {
  const pg = loadPg();
  const admin = new pg.Pool({ connectionString: base, max: 1 } as PgPoolConfig);
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

function spawnWorker(
  url: string,
  id: string,
  env: Record<string, string>,
): { child: ChildProcess; ready: Promise<void> } {
  const child = spawn(
    process.execPath,
    [
      "--import",
      TSX,
      CLI,
      "worker",
      MODULE,
      "--postgres",
      url,
      "--id",
      id,
      "--concurrency",
      "8",
      "--lease-ms",
      String(TIMING.leaseMs),
      "--adopt-ms",
      String(TIMING.adoptEveryMs),
      "--poll-ms",
      String(TIMING.pollMs),
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NODE_NO_WARNINGS: "1", ...env } },
  );
  let err = "";
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
      if (err.includes("consuming queue")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`worker ${id} exited ${code}: ${err}`)));
  });
  return { child, ready };
}

/** A bare DBOS workflow's cost per step (bench/scale-bare.ts), in its own process and database. */
async function bareDbos(url: string): Promise<number> {
  const child = spawn(process.execPath, ["--import", TSX, BARE, url, String(STEPS)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_NO_WARNINGS: "1" },
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d;
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`bare DBOS workflow exited ${code}: ${err.slice(-600)}`);
  return (JSON.parse(line.slice(7)) as { msPerStep: number }).msPerStep;
}

/** Per-step cost inside one process: the run's own duration divided by its steps. */
async function perStep(url: string, bareUrl: string): Promise<BenchTable> {
  const plainRun = async () => {
    const agent = new Agent({
      instructions: "Bench.",
      model: new ZeroLatencyModel(STEPS),
      tools: [echo],
      limits: { maxSteps: 100_000 },
    });
    return (await agent.run("go")).usage.durationMs / STEPS;
  };
  const dir = mkdtempSync(join(tmpdir(), "glassloop-bench-scale-"));
  const sqlite = new SqliteStore({ path: join(dir, "bench.db") });
  const sqliteRun = async () => {
    const agent = new Agent({
      instructions: "Bench.",
      model: new ZeroLatencyModel(STEPS),
      tools: [echo],
      store: sqlite,
      limits: { maxSteps: 100_000 },
    });
    return (await agent.run("go")).usage.durationMs / STEPS;
  };
  process.env.BENCH_SCALE_STEPS = String(STEPS);
  const { default: module } = await import("./scale-worker.js");
  const worker = await startWorker({ url, module, id: "bench-inproc", ...TIMING, logLevel: "error" });
  const { ScaleClient } = await import("glassloop/scale");
  const client = await ScaleClient.connect({ url, pollMs: 20 });
  const dbosRun = async (agent: "zero" | "marked") => {
    const outcome = await (await client.enqueue(agent, "go")).result();
    if (outcome.status !== "ok") throw new Error(`bench run failed: ${JSON.stringify(outcome)}`);
    return (outcome.usage as { durationMs: number }).durationMs / STEPS;
  };
  const best = async (f: () => Promise<number>, tries = 5) => {
    await f();
    const samples: number[] = [];
    for (let i = 0; i < tries; i++) samples.push(await f());
    return Math.min(...samples);
  };
  try {
    const plain = await best(plainRun);
    const lite = await best(sqliteRun);
    const zero = await best(() => dbosRun("zero"));
    const marked = await best(() => dbosRun("marked"));
    // The floor, in the same sitting: the same steps in a workflow of DBOS alone.
    const bare = await bareDbos(bareUrl);
    const row = (name: string, ms: number, dbos = true) => [
      name,
      round(ms, 3),
      round(ms - plain, 3),
      dbos ? round(ms - plain - bare, 3) : "–",
    ];
    return {
      title: `Scale-out: cost per step in one process (${STEPS}-step runs of a zero-latency model, one call per step, best of 5)`,
      columns: ["durability", "ms/step", "overhead ms/step", "over bare DBOS ms/step"],
      rows: [
        ["bare DBOS workflow, same steps (the floor)", round(bare, 3), "–", 0],
        row("none", plain, false),
        row("SQLite checkpoints", lite, false),
        row("DBOS + Postgres, idempotent tool (model step + tool step)", zero),
        row("DBOS + Postgres, non-idempotent tool (+ start marker step)", marked),
      ],
      notes: [
        "The run's own duration (usage.durationMs) per step: the queue's wait before the run starts is left out.",
        "Postgres 15 on 127.0.0.1 with the server's defaults (fsync on, synchronous_commit on).",
        "Over bare DBOS: glassloop's overhead minus what a bare DBOS workflow with the same steps costs (target ≤ 2 ms).",
      ],
    };
  } finally {
    await client.close();
    await worker.stop(1_000);
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs per second of `workers` worker processes on 60 runs of a 5-step zero-latency agent. */
async function throughput(base: string, workers: number, index: number): Promise<(string | number)[]> {
  const url = await database(base, `bench_tp_${index}`);
  const { ScaleClient } = await import("glassloop/scale");
  const client = await ScaleClient.connect({ url, pollMs: 20 });
  const spawned = Array.from({ length: workers }, (_, i) =>
    spawnWorker(url, `tp${i}`, { BENCH_SCALE_STEPS: "5" }),
  );
  try {
    await Promise.all(spawned.map((w) => w.ready));
    const runs = 60;
    const started = performance.now();
    const handles = await Promise.all(Array.from({ length: runs }, () => client.enqueue("zero", "go")));
    const outcomes = await Promise.all(handles.map((h) => h.result()));
    const seconds = (performance.now() - started) / 1000;
    if (outcomes.some((o) => o.status !== "ok")) throw new Error("a bench run failed");
    return [workers, runs, round(seconds, 2), round(runs / seconds, 1)];
  } finally {
    for (const w of spawned) w.child.kill("SIGTERM");
    await client.close();
  }
}

/** Time from a SIGKILL to the dead worker's run being taken over, and to its end. */
async function failover(base: string): Promise<BenchTable> {
  const url = await database(base, "bench_failover");
  const { ScaleClient } = await import("glassloop/scale");
  const client: ScaleClient = await ScaleClient.connect({ url, pollMs: 20 });
  const a = spawnWorker(url, "fa", { BENCH_SCALE_STEPS: "400" });
  const b = spawnWorker(url, "fb", { BENCH_SCALE_STEPS: "400" });
  try {
    await Promise.all([a.ready, b.ready]);
    const samples: { takeover: number; total: number }[] = [];
    const live = new Map([
      ["fa", a],
      ["fb", b],
    ]);
    let next = 0;
    for (let round_ = 0; round_ < 3; round_++) {
      const handle = await client.enqueue("zero", "go");
      let owner: string | undefined;
      while (owner === undefined) {
        const [row] = await client.listRuns({ runIds: [handle.runId] });
        if (row?.status === "PENDING" && row.worker) owner = row.worker;
        else await new Promise((r) => setTimeout(r, 10));
      }
      const victim = live.get(owner);
      victim?.child.kill("SIGKILL");
      const killed = performance.now();
      live.delete(owner);
      let takeover = 0;
      while (takeover === 0) {
        const [row] = await client.listRuns({ runIds: [handle.runId] });
        if (row && (row.worker !== owner || row.status !== "PENDING")) takeover = performance.now() - killed;
        else await new Promise((r) => setTimeout(r, 10));
      }
      const outcome = await handle.result();
      if (outcome.status !== "ok") throw new Error("the failed-over run did not finish");
      samples.push({ takeover, total: performance.now() - killed });
      const id = `fr${next++}`;
      const replacement = spawnWorker(url, id, { BENCH_SCALE_STEPS: "400" });
      await replacement.ready;
      live.set(id, replacement);
    }
    for (const w of live.values()) w.child.kill("SIGTERM");
    const bound = TIMING.leaseMs + TIMING.adoptEveryMs + TIMING.pollMs * 4;
    return {
      title:
        "Scale-out: failover after a SIGKILL (2 workers, lease 2 s, adoption every 250 ms, queue poll 50 ms)",
      columns: ["kill", "taken over after ms", "run ended after ms"],
      rows: samples.map((s, i) => [i + 1, round(s.takeover, 0), round(s.total, 0)]),
      notes: [
        `The bound for these settings: lease + adoption period + 4 polls = ${bound} ms; with the defaults (15 s, 3 s, 1 s) 22 s.`,
        "Taken over: the run is back on the queue (or running) under another worker; the rest is the replay of its recorded steps and the steps left.",
      ],
    };
  } finally {
    a.child.kill("SIGKILL");
    b.child.kill("SIGKILL");
    await client.close();
  }
}

/** Per-step cost, throughput with 1, 2 and 4 workers, and failover time. */
export async function scaleBench(): Promise<BenchTable[]> {
  if (!postgresInstalled())
    return [
      {
        title: "Scale-out on DBOS",
        columns: ["skipped"],
        rows: [["postgresql-15 is not installed (apt-get install -y postgresql-15)"]],
      },
    ];
  const cluster = await startCluster({ durable: true });
  try {
    const steps = await perStep(
      await database(cluster.url, "bench_steps"),
      await database(cluster.url, "bench_bare"),
    );
    if (process.env.BENCH_SCALE_ONLY === "steps") return [steps];
    const rows: (string | number)[][] = [];
    for (const [i, n] of [1, 2, 4].entries()) rows.push(await throughput(cluster.url, n, i));
    const tp: BenchTable = {
      title:
        "Scale-out: throughput of a 5-step zero-latency agent (60 runs, worker processes with concurrency 8)",
      columns: ["workers", "runs", "seconds", "runs/s"],
      rows,
      notes: [
        `This machine: ${(await import("node:os")).cpus().length} cores shared by the workers, Postgres and the client; on 2 cores more workers mostly add contention.`,
      ],
    };
    const fo = await failover(cluster.url);
    return [steps, tp, fo];
  } finally {
    cluster.stop();
  }
}
