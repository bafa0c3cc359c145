/**
 * `npm run bench -- postgres`: the per-step cost of durable checkpoints on Postgres next to
 * SQLite and no store, on a throwaway local cluster with the server's default durability
 * (fsync on, synchronous_commit on), then with synchronous_commit off (what SQLite's
 * synchronous=NORMAL compares to: a crash of the server may lose the last commits, never corrupt).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type Store, tool } from "glassloop";
import { PostgresStore } from "glassloop/postgres";
import { SqliteStore } from "glassloop/store";
import { z } from "zod";
import { loadPg } from "../src/store/postgres/pg-driver.js";
import { postgresInstalled, startCluster } from "../test/helpers/postgres-cluster.js";
import { type BenchTable, round } from "./table.js";
import { ZeroLatencyModel } from "./zero-model.js";

const echo = tool({
  name: "echo",
  description: "Returns its argument.",
  input: z.object({ i: z.number() }),
  run: ({ i }) => i,
});

function agent(steps: number, store: Store | undefined): Agent {
  return new Agent({
    instructions: "Bench.",
    model: new ZeroLatencyModel(steps),
    tools: [echo],
    limits: { maxSteps: 100_000 },
    ...(store && { store }),
  });
}

/** Microseconds per step, the best of `tries` runs (the slow ones measure the neighbours). */
async function perStep(steps: number, store: Store | undefined, tries = 5): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < tries; i++) {
    const started = performance.now();
    await agent(steps, store).run("go");
    samples.push(((performance.now() - started) * 1000) / steps);
  }
  return Math.min(...samples);
}

/** Checkpoint cost per step: none, SQLite, Postgres (synchronous_commit on and off). */
export async function postgresBench(): Promise<BenchTable[]> {
  if (!postgresInstalled()) {
    return [
      {
        title: "Durable runs on Postgres",
        columns: ["skipped"],
        rows: [["postgresql-15 is not installed (apt-get install -y postgresql-15)"]],
      },
    ];
  }
  const started = performance.now();
  const cluster = await startCluster({ durable: true });
  const startMs = performance.now() - started;
  const dir = mkdtempSync(join(tmpdir(), "glassloop-bench-pg-"));
  const sqlite = new SqliteStore({ path: join(dir, "bench.db") });
  const stores: PostgresStore[] = [];
  try {
    const steps = 200;
    const plain = await perStep(steps, undefined);
    await perStep(20, sqlite, 1);
    const lite = await perStep(steps, sqlite);
    const synced = await PostgresStore.connect({ url: cluster.url, schema: "bench_sync" });
    stores.push(synced);
    await perStep(20, synced, 1);
    const pgOn = await perStep(steps, synced);
    const pg = loadPg();
    const admin = new pg.Pool({
      connectionString: cluster.url,
      max: 1,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 1_000,
      options: "",
      application_name: "glassloop bench",
      types: pg.types,
    });
    // The floor under every checkpoint: one round trip to the server and back.
    await admin.query("SELECT 1");
    const pingStarted = performance.now();
    for (let i = 0; i < 500; i++) await admin.query("SELECT 1");
    const pingUs = ((performance.now() - pingStarted) * 1000) / 500;
    await admin.query("ALTER DATABASE postgres SET synchronous_commit = off");
    await admin.end();
    const relaxed = await PostgresStore.connect({ url: cluster.url, schema: "bench_async" });
    stores.push(relaxed);
    await perStep(20, relaxed, 1);
    const pgOff = await perStep(steps, relaxed);
    const long = await agent(1_000, relaxed).run("go");
    const loadStarted = performance.now();
    await relaxed.loadRun(long.runId);
    const loadMs = performance.now() - loadStarted;
    const overhead = (us: number) => round((us - plain) / 1000, 3);
    return [
      {
        title: `Durable runs: checkpoint cost per step, SQLite vs Postgres (${steps}-step runs, best of 5)`,
        columns: ["store", "µs/step", "overhead ms/step"],
        rows: [
          ["none", round(plain, 1), 0],
          ["SQLite (WAL, synchronous=NORMAL)", round(lite, 1), overhead(lite)],
          ["Postgres 15 local (synchronous_commit=on)", round(pgOn, 1), overhead(pgOn)],
          ["Postgres 15 local (synchronous_commit=off)", round(pgOff, 1), overhead(pgOff)],
        ],
        notes: [
          "Each step writes 4 checkpoints (step start, model response, tool started, tool done), each one transaction;",
          "on Postgres each checkpoint is one statement (the run's row locked inside it): one round trip over TCP on 127.0.0.1.",
          `A bare SELECT 1 round trip: ${round(pingUs, 1)} µs (mean of 500), the floor under each checkpoint.`,
          `Postgres loadRun of a 1,000-step run (2,001 messages): ${round(loadMs, 1)} ms. Cluster initdb + start: ${round(startMs / 1000, 1)} s.`,
        ],
      },
    ];
  } finally {
    await Promise.all(stores.map((s) => s.close()));
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
    cluster.stop();
  }
}
