import { writeFileSync } from "node:fs";
import type { ScaleClient } from "glassloop/scale";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPg, type PgPoolConfig } from "../../src/store/postgres/pg-driver.js";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import type { WireServer } from "../helpers/wire-server.js";
import { effectsFile, readEffects, spawnWorker, startScaleSetup, type TestWorker } from "./scale-harness.js";

/**
 * The two run queues: a session's runs on the partitioned queue (one at a time per session),
 * every other run on the plain queue beside it, and the worker's one limit over both.
 */
describe.skipIf(POSTGRES_SKIP)("scale-out on DBOS: the run queues", () => {
  let url: string;
  let wire: WireServer;
  let client: ScaleClient;
  let worker: TestWorker;
  const effects = effectsFile("glassloop-queues-");

  beforeAll(async () => {
    ({ url, wire, client } = await startScaleSetup());
    worker = spawnWorker("q", { url, wireUrl: wire.url, effects, concurrency: 2 });
    await worker.ready;
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    worker?.child.kill("SIGTERM");
    await worker?.exited;
    await wire?.close();
  });

  /** Where DBOS queued each run: its queue and partition key. */
  const queuedOn = async (runIds: string[]) => {
    const pool = new (loadPg().Pool)({ connectionString: url, max: 1 } as PgPoolConfig);
    try {
      const { rows } = await pool.query<{ id: string; queue: string; key: string | null }>(
        `select workflow_uuid as id, queue_name as queue, queue_partition_key as key
         from dbos.workflow_status where workflow_uuid = any($1) order by workflow_uuid`,
        [runIds],
      );
      return rows;
    } finally {
      await pool.end();
    }
  };

  it("puts runs without a session on the plain queue, a session's on the partitioned one, and runs no more than the worker's limit of both together", async () => {
    const holds = () => readEffects(effects).filter((l) => l.kind === "hold");
    const waitForHolds = async (n: number) => {
      const deadline = Date.now() + 30_000;
      while (holds().length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    };
    // Two runs of two sessions fill the worker (limit 2)...
    const first = [
      await client.enqueue("billing", "run s1: hold it", { session: "one", runId: "q-s1" }),
      await client.enqueue("billing", "run s2: hold it", { session: "two", runId: "q-s2" }),
    ];
    await waitForHolds(2);
    // ...so runs without a session, on the other queue, wait for them.
    const later = [
      await client.enqueue("billing", "run p1: hold it", { runId: "q-p1" }),
      await client.enqueue("billing", "run p2: hold it", { runId: "q-p2" }),
    ];
    await new Promise((r) => setTimeout(r, 1_500));
    expect(
      holds()
        .map((l) => l.run)
        .sort(),
    ).toEqual(["s1", "s2"]);
    expect(await queuedOn(["q-p1", "q-p2", "q-s1", "q-s2"])).toEqual([
      { id: "q-p1", queue: "glassloop.sessionless", key: null },
      { id: "q-p2", queue: "glassloop.sessionless", key: null },
      { id: "q-s1", queue: "glassloop", key: "session:one" },
      { id: "q-s2", queue: "glassloop", key: "session:two" },
    ]);
    writeFileSync(`${effects}.release`, "");
    const outcomes = await Promise.all([...first, ...later].map((h) => h.result()));
    expect(outcomes.map((o) => o.status)).toEqual(["ok", "ok", "ok", "ok"]);
    const all = holds();
    expect(all.map((l) => l.run).sort()).toEqual(["p1", "p2", "s1", "s2"]);
    for (const line of all) expect(line.holding).toBeLessThanOrEqual(2);
  }, 60_000);

  it("does not open DBOS's dequeue on an idle worker: an empty queue costs its poll one indexed read", async () => {
    // Every dequeue transaction of DBOS reads the application versions first; the read that tells
    // an empty queue does not. Postgres's table statistics count the reads of every backend.
    const pool = new (loadPg().Pool)({ connectionString: url, max: 1 } as PgPoolConfig);
    const reads = async () => {
      const { rows } = await pool.query<{ n: string }>(
        `select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as n from pg_stat_all_tables
         where schemaname = 'dbos' and relname = 'application_versions'`,
      );
      return Number(rows[0]?.n);
    };
    const polls = async () => {
      const { rows } = await pool.query<{ n: string }>(
        `select coalesce(idx_scan, 0) as n from pg_stat_all_tables where schemaname = 'dbos' and relname = 'workflow_status'`,
      );
      return Number(rows[0]?.n);
    };
    try {
      // A backend's counts reach the view at most a second after its last statement: the first
      // test's dequeues are all in before the window opens.
      await new Promise((r) => setTimeout(r, 2_000));
      const [readsBefore, pollsBefore] = [await reads(), await polls()];
      await new Promise((r) => setTimeout(r, 3_000));
      const [readsAfter, pollsAfter] = [await reads(), await polls()];
      // Two queues polled every 50 ms: about 120 polls in 3 s, none of them a dequeue.
      expect(pollsAfter - pollsBefore).toBeGreaterThan(30);
      // None expected; the margin is for a backend whose last second of counts (the first test's
      // dequeues) reaches the view late. Dequeuing the idle queues reads it about 40 times a second.
      expect(readsAfter - readsBefore).toBeLessThan(20);
      // And the queues still serve: a run of each kind, enqueued on the idle worker, is taken.
      const runs = [
        await client.enqueue("billing", "run i1: go", { session: "idle", runId: "q-i1" }),
        await client.enqueue("billing", "run i2: go", { runId: "q-i2" }),
      ];
      expect((await Promise.all(runs.map((h) => h.result()))).map((o) => o.status)).toEqual(["ok", "ok"]);
    } finally {
      await pool.end();
    }
  }, 60_000);
});
