/**
 * `npm run bench -- scale`'s idle table: what a glassloop worker and a bare DBOS worker spend
 * waiting for work (round trips and CPU per second, with the bench's 50 ms polls), and how long
 * a run enqueued on an idle worker waits before it is picked up. The wait is read from DBOS's own
 * row (`started_at_epoch_ms - created_at`, both the database's clock), so the client's polling
 * is not in it.
 *
 * Usage: `idleAndPickup(url, index)` from bench/scale.ts, on a database of its own per side.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadPg, type PgPoolConfig } from "../src/store/postgres/pg-driver.js";
import type { Spent } from "./pg-count.js";
import { type BenchTable, round } from "./table.js";

const BARE = fileURLToPath(new URL("./scale-bare.ts", import.meta.url));
const GLASSLOOP = fileURLToPath(new URL("./scale-glassloop.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const IDLE_MS = 5_000;
const PICKUPS = Number(process.env.BENCH_SCALE_PICKUPS ?? 30);

/** A bench child: READY once it consumes its queue; `spent()` after `mark()` reads what it sent. */
function child(
  script: string,
  args: string[],
): { proc: ChildProcess; ready: Promise<void>; spent: () => Promise<Spent>; mark: () => void } {
  const proc = spawn(process.execPath, ["--import", TSX, script, ...args], {
    stdio: ["pipe", "pipe", "ignore"],
    env: { ...process.env, NODE_NO_WARNINGS: "1" },
  });
  const waiting: ((s: Spent) => void)[] = [];
  let resolveReady: () => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    proc.on("exit", (code) => reject(new Error(`${script} exited ${code}`)));
  });
  createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    if (line === "READY") resolveReady();
    if (line.startsWith("SPENT ")) waiting.shift()?.(JSON.parse(line.slice(6)) as Spent);
  });
  return {
    proc,
    ready,
    mark: () => proc.stdin?.write("mark\n"),
    spent: () =>
      new Promise<Spent>((resolve) => {
        waiting.push(resolve);
        proc.stdin?.write("spent\n");
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Idle cost per second and pickup waits of one side, on the database at `url`. */
export async function idleAndPickup(
  url: string,
  side: "bare" | "glassloop",
  pollMs: number,
  serverCpuMs: () => number | undefined,
): Promise<{
  roundTripsPerS: number;
  cpuMsPerS: number;
  serverCpuMsPerS: number | undefined;
  kinds: string;
  pickupMs: { median: number; p90: number; max: number };
}> {
  const worker =
    side === "bare"
      ? child(BARE, [url, "worker", String(pollMs)])
      : child(GLASSLOOP, [url, "1", String(pollMs), "idle"]);
  const { DBOSClient } = await import("@dbos-inc/dbos-sdk");
  const { ScaleClient } = await import("glassloop/scale");
  const bare = side === "bare" ? await DBOSClient.create({ systemDatabaseUrl: url }) : undefined;
  const scale = side === "bare" ? undefined : await ScaleClient.connect({ url, pollMs: 20 });
  const pool = new (loadPg().Pool)({ connectionString: url, max: 1 } as PgPoolConfig);
  const enqueue = async (id: string) => {
    if (bare) await bare.enqueue({ workflowName: "bare", queueName: "bare", workflowID: id }, 1);
    else await scale?.enqueue("zero", "go", { runId: id });
  };
  const ended = async (id: string) => {
    for (;;) {
      const { rows } = await pool.query<{ status: string; wait: string | null }>(
        "select status, started_at_epoch_ms - created_at as wait from dbos.workflow_status where workflow_uuid = $1",
        [id],
      );
      const row = rows[0];
      if (row?.status === "SUCCESS") return Number(row.wait);
      if (row && (row.status === "ERROR" || row.status === "CANCELLED"))
        throw new Error(`${id}: ${row.status}`);
      await sleep(10);
    }
  };
  try {
    await worker.ready;
    await enqueue(`${side}_warm`);
    await ended(`${side}_warm`);
    await sleep(500);
    worker.mark();
    const server0 = serverCpuMs();
    await sleep(IDLE_MS);
    const server1 = serverCpuMs();
    const idle = await worker.spent();
    const waits: number[] = [];
    for (let i = 0; i < PICKUPS; i++) {
      // Enqueued at a random moment of the poll cycle, on an idle worker.
      await sleep(100 + Math.random() * 200);
      const id = `${side}_pickup_${i}`;
      await enqueue(id);
      waits.push(await ended(id));
    }
    waits.sort((a, b) => a - b);
    const at = (q: number) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))] as number;
    return {
      roundTripsPerS: round(idle.roundTrips / (IDLE_MS / 1000), 1),
      cpuMsPerS: round(idle.cpuMs / (IDLE_MS / 1000), 2),
      serverCpuMsPerS:
        server0 === undefined || server1 === undefined
          ? undefined
          : round((server1 - server0) / (IDLE_MS / 1000), 1),
      kinds: Object.entries(idle.byKind)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${round(v / (IDLE_MS / 1000), 1)}`)
        .join(", "),
      pickupMs: { median: at(0.5), p90: at(0.9), max: waits[waits.length - 1] as number },
    };
  } finally {
    await bare?.destroy();
    await scale?.close();
    await pool.end();
    worker.proc.stdin?.end();
    setTimeout(() => worker.proc.kill("SIGKILL"), 3_000).unref();
  }
}

/** The idle table: each side twice, interleaved, on databases of their own made by `database`. */
export async function idleTable(
  database: (name: string) => Promise<string>,
  pollMs: number,
  serverCpuMs: () => number | undefined,
): Promise<BenchTable> {
  const rows: (string | number)[][] = [];
  const kinds: string[] = [];
  for (const [i, side] of (["bare", "glassloop", "bare", "glassloop"] as const).entries()) {
    const r = await idleAndPickup(await database(`bench_idle_${i}`), side, pollMs, serverCpuMs);
    const name = side === "bare" ? "bare DBOS worker" : "glassloop worker";
    rows.push([
      name,
      r.roundTripsPerS,
      r.cpuMsPerS,
      r.serverCpuMsPerS ?? "–",
      r.pickupMs.median,
      r.pickupMs.p90,
      r.pickupMs.max,
    ]);
    if (i >= 2) kinds.push(`${name}: ${r.kinds}`);
  }
  return {
    title: `Scale-out: an idle worker (${pollMs} ms polls), and the wait of a run enqueued on it (${PICKUPS} runs)`,
    columns: [
      "worker",
      "idle round trips/s",
      "idle CPU ms/s",
      "Postgres CPU ms/s",
      "pickup ms, median",
      "p90",
      "max",
    ],
    rows,
    notes: [
      `Idle: what the worker process sent to Postgres, its CPU and the server's (every process of the cluster; Linux only) over ${IDLE_MS / 1000} s with nothing queued.`,
      "Pickup: from the run's enqueue to its claim by the worker (DBOS's created_at and started_at, both the database's clock), each run enqueued at a random moment on an idle worker.",
      ...kinds.map((k) => `Idle round trips per second by kind, ${k}.`),
    ],
  };
}
