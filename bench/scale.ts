/**
 * `npm run bench -- scale`: what running agents as DBOS workflows costs, against a bare DBOS
 * workflow with the same steps, on one throwaway local cluster (fsync off unless
 * BENCH_SCALE_DURABLE=1): the cost per step of each, interleaved, in ms, worker CPU, round trips
 * and transactions; the throughput of a zero-latency agent with 1, 2 and 4 worker processes next
 * to the bare workflow's with 1; the failover time after a SIGKILL.
 *
 * BENCH_SCALE_ONLY=steps|throughput|idle: one table (idle: bench/scale-idle.ts). BENCH_SCALE_ROUNDS (7): interleaved rounds per
 * step table. BENCH_SCALE_RUNS (60): runs per throughput row. BENCH_SCALE_PROFILE=<dir>: a CPU
 * profile of each child process; BENCH_SCALE_WINDOW_PROFILE=<dir>: of each throughput worker's
 * measured window only; BENCH_SCALE_CALLGRIND=<dir>: each child under callgrind, instrumented in
 * that window (its instructions per run in the table); BENCH_SCALE_NODE_FLAGS: more node flags for
 * each child (`--trace-generalization`). BENCH_SCALE_PGSS=1: the server's time by statement per
 * throughput row (pg_stat_statements, bench/pg-server.ts). BENCH_SCALE_WARM (1): unmeasured runs
 * first. BENCH_SCALE_PLAN: the throughput rows, a comma list of `bare` and worker
 * counts (default `bare,1,bare,1,2,4`); with BENCH_SCALE_AB=<another checkout>, `B` is one worker
 * of that checkout's glassloop (its own src, started in its directory), for a before/after of
 * worker code in one sitting on one cluster.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Agent, tool } from "glassloop";
import type { ScaleClient } from "glassloop/scale";
import { SqliteStore } from "glassloop/store";
import { z } from "zod";
import { loadPg, type PgPool, type PgPoolConfig } from "../src/store/postgres/pg-driver.js";
import { postgresInstalled, startCluster } from "../test/helpers/postgres-cluster.js";
import type { Spent, StepCost } from "./pg-count.js";
import { PGSS_SETTINGS, serverCpuMs, topStatements } from "./pg-server.js";
import { idleTable } from "./scale-idle.js";
import { WORKER_CONCURRENCY } from "./scale-settings.js";
import { type BenchTable, round } from "./table.js";
import { ZeroLatencyModel } from "./zero-model.js";

const MODULE = fileURLToPath(new URL("./scale-worker.ts", import.meta.url));
const CLI = fileURLToPath(new URL("../src/cli/main.ts", import.meta.url));
const BARE = fileURLToPath(new URL("./scale-bare.ts", import.meta.url));
const GLASSLOOP = fileURLToPath(new URL("./scale-glassloop.ts", import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const STEPS = 50;
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 7);
const TIMING = { leaseMs: 2_000, adoptEveryMs: 250, pollMs: 50 };

const echo = tool({
  name: "echo",
  description: "Returns its argument.",
  input: z.object({ i: z.number() }),
  idempotent: true,
  run: ({ i }) => i,
});

async function database(base: string, name: string): Promise<string> {
  await withPool(base, (admin) => admin.query(`create database ${name}`));
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `use` with a one-connection pool on `url`, ended after. */
async function withPool<T>(url: string, use: (pool: PgPool) => Promise<T>): Promise<T> {
  const pg = loadPg();
  const pool = new pg.Pool({ connectionString: url, max: 1 } as PgPoolConfig);
  try {
    return await use(pool);
  } finally {
    await pool.end();
  }
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
      String(WORKER_CONCURRENCY),
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

/** What the bench's children print: a run's cost per step, or what a worker spent since `mark`. */
type ChildLines = { STEP: StepCost; SPENT: Spent };

/** A long-lived child process of the bench that answers with `STEP {…}` and `SPENT {…}` lines. */
class BenchChild {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  readonly #lines: { [K in keyof ChildLines]: string[] } = { STEP: [], SPENT: [] };
  readonly #waiting: { [K in keyof ChildLines]: ((json: string) => void)[] } = { STEP: [], SPENT: [] };
  #err = "";

  constructor(script: string, args: string[], env: Record<string, string> = {}, cwd?: string) {
    // BENCH_SCALE_PROFILE=<dir>: a CPU profile of each child (the worker's side of a step) there.
    const profile = process.env.BENCH_SCALE_PROFILE;
    const prof = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [];
    // BENCH_SCALE_CALLGRIND=<dir>: each child under callgrind, instrumented only in its measured
    // window (pg-count.ts toggles it), its instructions reported beside its CPU.
    const grind = process.env.BENCH_SCALE_CALLGRIND;
    // BENCH_SCALE_NODE_FLAGS: more node/V8 flags for each child (`--trace-generalization`, `--log-maps`).
    const flags = (process.env.BENCH_SCALE_NODE_FLAGS ?? "").split(" ").filter(Boolean);
    const node = [...prof, ...flags, "--import", TSX, script, ...args];
    const [command, argv] = grind
      ? [
          "valgrind",
          [
            "--tool=callgrind",
            "--instr-atstart=no",
            `--callgrind-out-file=${grind}/cg-%p.out`,
            process.execPath,
            "--hash-seed=1",
            "--random-seed=1",
            ...node,
          ],
        ]
      : [process.execPath, node];
    this.child = spawn(command, argv, {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, NODE_NO_WARNINGS: "1", ...env },
      ...(cwd !== undefined && { cwd }),
    });
    this.child.stderr?.on("data", (d: Buffer) => {
      this.#err = (this.#err + d.toString()).slice(-2_000);
    });
    let resolveReady: () => void = () => {};
    let rejectReady: (error: Error) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    });
    this.child.on("exit", (code) => rejectReady(new Error(`${script} exited ${code}: ${this.#err}`)));
    createInterface({ input: this.child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      if (line === "READY") resolveReady();
      const kind = line.slice(0, line.indexOf(" "));
      if (kind !== "STEP" && kind !== "SPENT") return;
      const json = line.slice(kind.length + 1);
      const waiter = this.#waiting[kind].shift();
      if (waiter) waiter(json);
      else this.#lines[kind].push(json);
    });
  }

  /** The next line of `kind`, parsed. */
  next<K extends keyof ChildLines>(kind: K): Promise<ChildLines[K]> {
    const line = this.#lines[kind].shift();
    if (line !== undefined) return Promise.resolve(JSON.parse(line) as ChildLines[K]);
    return new Promise((resolve) => this.#waiting[kind].push((l) => resolve(JSON.parse(l) as ChildLines[K])));
  }

  send(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  /** What the child spent since its last `mark`. */
  spent(): Promise<Spent> {
    this.send("spent");
    return this.next("SPENT");
  }

  stop(): void {
    this.child.stdin?.end();
    setTimeout(() => this.child.kill("SIGKILL"), 3_000).unref();
  }
}

/** Round trips by kind, per `n` (a step, a run), most first. */
const kindsPer = (byKind: Record<string, number>, n: number) =>
  Object.entries(byKind)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${round(v / n, 2)}`)
    .join(", ");

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** The loop alone, in this process: no durability, and SQLite checkpoints (the run's duration per step). */
async function localPerStep(): Promise<{ plain: number; lite: number }> {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-bench-scale-"));
  const sqlite = new SqliteStore({ path: join(dir, "bench.db") });
  const run = async (store?: SqliteStore) => {
    const agent = new Agent({
      instructions: "Bench.",
      model: new ZeroLatencyModel(STEPS),
      tools: [echo],
      ...(store && { store }),
      limits: { maxSteps: 100_000 },
    });
    return (await agent.run("go")).usage.durationMs / STEPS;
  };
  const best = async (f: () => Promise<number>) => {
    await f();
    const samples: number[] = [];
    for (let i = 0; i < ROUNDS; i++) samples.push(await f());
    return median(samples);
  };
  try {
    return { plain: await best(() => run()), lite: await best(() => run(sqlite)) };
  } finally {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Per-step cost of glassloop on DBOS against a bare DBOS workflow with the same steps: each in
 * its own process and database on the same cluster, runs interleaved (bare, idempotent,
 * non-idempotent, in a rotating order) so both sides see the same load, medians of ROUNDS.
 */
async function perStep(base: string, settings: string): Promise<BenchTable> {
  const gUrl = await database(base, "bench_steps");
  const bUrl = await database(base, "bench_bare");
  const { ScaleClient } = await import("glassloop/scale");
  // The worker polls its queue slowly here: its polls are not steps, and the run's window starts
  // at its first model call, after the queue's wait.
  const gl = new BenchChild(GLASSLOOP, [gUrl, String(STEPS), "200"]);
  const bare = new BenchChild(BARE, [bUrl, "steps"]);
  const client = await ScaleClient.connect({ url: gUrl, pollMs: 20 });
  try {
    await Promise.all([gl.ready, bare.ready]);
    const sides = {
      bare: async () => {
        bare.send(`run ${STEPS}`);
        return bare.next("STEP");
      },
      zero: async () => glassloopRun("zero"),
      marked: async () => glassloopRun("marked"),
    };
    async function glassloopRun(agent: "zero" | "marked"): Promise<StepCost> {
      const cost = gl.next("STEP");
      const outcome = await (await client.enqueue(agent, "go")).result();
      if (outcome.status !== "ok") throw new Error(`bench run failed: ${JSON.stringify(outcome)}`);
      return cost;
    }
    const names = ["bare", "zero", "marked"] as const;
    for (const name of names) await sides[name]();
    const samples: Record<(typeof names)[number], StepCost[]> = { bare: [], zero: [], marked: [] };
    for (let round_ = 0; round_ < ROUNDS; round_++)
      for (let k = 0; k < names.length; k++) {
        const name = names[(k + round_) % names.length] as (typeof names)[number];
        samples[name].push(await sides[name]());
      }
    const { plain, lite } = await localPerStep();
    const med = (name: (typeof names)[number], key: "msPerStep" | "cpuMsPerStep") =>
      median(samples[name].map((s) => s[key]));
    // Paired per round: the bare run next to each glassloop run saw the same load.
    const over = (name: "zero" | "marked", key: "msPerStep" | "cpuMsPerStep") =>
      median(samples[name].map((s, i) => s[key] - (samples.bare[i] as StepCost)[key]));
    const last = (name: (typeof names)[number]) => samples[name][samples[name].length - 1] as StepCost;
    const row = (label: string, name: (typeof names)[number]) => [
      label,
      round(med(name, "msPerStep"), 3),
      name === "bare" ? 0 : round(over(name, "msPerStep"), 3),
      round(med(name, "cpuMsPerStep"), 3),
      name === "bare" ? 0 : round(over(name, "cpuMsPerStep"), 3),
      round(last(name).roundTripsPerStep, 2),
      round(last(name).transactionsPerStep, 2),
    ];
    const kinds = (name: (typeof names)[number]) => kindsPer(last(name).byKind, STEPS - 1);
    return {
      title: `Scale-out: cost per step on DBOS against a bare DBOS workflow (${STEPS}-step runs of a zero-latency model, one call per step, medians of ${ROUNDS} interleaved rounds)`,
      columns: [
        "run",
        "ms/step",
        "over bare ms/step",
        "CPU ms/step",
        "over bare CPU ms",
        "round trips/step",
        "transactions/step",
      ],
      rows: [
        row("bare DBOS workflow, same steps (the floor)", "bare"),
        row("glassloop, idempotent tool (model step + tool step)", "zero"),
        row("glassloop, non-idempotent tool (+ start marker step)", "marked"),
      ],
      notes: [
        `Postgres 15 on 127.0.0.1, one throwaway cluster for both sides: ${settings}.`,
        "Each side in its own worker process and database; the window runs from a run's first model call to its last, so the queue's wait and the run's start and end are left out.",
        "Over bare: the median over rounds of (glassloop − the bare run of the same round); target ≤ 2 ms per step for the idempotent tool.",
        "Round trips: queries sent by the worker process (each one waits for Postgres); transactions: commits (a statement outside begin…commit counts as one).",
        `By kind per step: bare: ${kinds("bare")}.`,
        `glassloop, idempotent: ${kinds("zero")}.`,
        `glassloop, non-idempotent: ${kinds("marked")}.`,
        `The loop alone in this process, run duration per step: no durability ${round(plain, 3)} ms, SQLite checkpoints ${round(lite, 3)} ms.`,
        `Load when done: ${loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")} (${cpus().length} cores).`,
      ],
    };
  } finally {
    await client.close();
    gl.stop();
    bare.stop();
  }
}

/**
 * Waits until every workflow of `ids` ended, with one query every 20 ms whatever the number of
 * runs (a client's per-run result polling would load the machine more the more runs wait), and
 * fails if one did not succeed.
 */
async function allEnded(url: string, ids: string[]): Promise<void> {
  // Asks about the oldest runs not seen ended yet, a few hundred at a time (and at once again
  // while all of those have ended): a poll over every id of the window cost the server CPU in
  // proportion to the window's size, on the cores the workers and Postgres share.
  let pending = ids;
  await withPool(url, async (pool) => {
    for (;;) {
      const asked = pending.slice(0, 256);
      const { rows } = await pool.query<{ id: string; status: string }>(
        `select workflow_uuid as id, status from dbos.workflow_status
         where workflow_uuid = any($1) and status in ('SUCCESS', 'ERROR', 'CANCELLED')`,
        [asked],
      );
      if (rows.some((r) => r.status !== "SUCCESS")) throw new Error("a bench run failed");
      const ended = new Set(rows.map((r) => r.id));
      pending = pending.filter((id) => !ended.has(id));
      if (pending.length === 0) return;
      if (ended.size < asked.length) await new Promise((r) => setTimeout(r, 20));
    }
  });
}

/**
 * Runs per second of `workers` glassloop worker processes, or of one bare DBOS worker, on 60
 * runs of 5 steps, with what the workers spent per run (CPU, round trips, transactions).
 */
async function throughput(
  cluster: { url: string; dir: string },
  workers: number | "bare" | "B",
  index: number,
): Promise<{ row: (string | number)[]; kinds: string; statements: string[] }> {
  const base = cluster.url;
  const url = await database(base, `bench_tp_${index}`);
  const runs = Number(process.env.BENCH_SCALE_RUNS ?? 60);
  const ids = Array.from({ length: runs }, (_, i) => `tp${index}_${i}`);
  const poll = String(TIMING.pollMs);
  const other = process.env.BENCH_SCALE_AB;
  const children =
    workers === "bare"
      ? [new BenchChild(BARE, [url, "worker", poll])]
      : workers === "B"
        ? [
            new BenchChild(
              join(other ?? ".", "bench/scale-glassloop.ts"),
              [url, "5", poll, "tp0"],
              { TSX_TSCONFIG_PATH: join(other ?? ".", "tsconfig.json") },
              other,
            ),
          ]
        : Array.from({ length: workers }, (_, i) => new BenchChild(GLASSLOOP, [url, "5", poll, `tp${i}`]));
  const { DBOSClient } = await import("@dbos-inc/dbos-sdk");
  const { ScaleClient } = await import("glassloop/scale");
  const bareClient = workers === "bare" ? await DBOSClient.create({ systemDatabaseUrl: url }) : undefined;
  const client = workers === "bare" ? undefined : await ScaleClient.connect({ url, pollMs: 20 });
  try {
    await Promise.all(children.map((c) => c.ready));
    // Runs first, unmeasured: what a worker loads on its first run is not a run's cost.
    // BENCH_SCALE_WARM (1): runs before the measured ones. A worker's first hundreds of runs
    // still compile its hot code (V8's optimizing compiler, on other threads), which a
    // long-running worker has done; glassloop has more code to compile than the bare workflow.
    const warm = Array.from(
      { length: Number(process.env.BENCH_SCALE_WARM ?? 1) },
      (_, i) => `tp${index}_warm${i}`,
    );
    for (const id of warm)
      if (bareClient)
        await bareClient.enqueue({ workflowName: "bare", queueName: "bare", workflowID: id }, 5);
      else await client?.enqueue("zero", "go", { runId: id });
    await allEnded(url, warm);
    for (const c of children) c.send("mark");
    const serverBefore = serverCpuMs(cluster.dir);
    const started = performance.now();
    for (const id of ids)
      if (bareClient)
        await bareClient.enqueue({ workflowName: "bare", queueName: "bare", workflowID: id }, 5);
      else await client?.enqueue("zero", "go", { runId: id });
    await allEnded(url, ids);
    const seconds = (performance.now() - started) / 1000;
    const serverAfter = serverCpuMs(cluster.dir);
    const spent = await Promise.all(children.map((c) => c.spent()));
    if (client) {
      const outcomes = await Promise.all(ids.map((id) => client.result(id)));
      if (outcomes.some((o) => o.status !== "ok")) throw new Error("a bench run failed");
    }
    const per = (key: "cpuMs" | "mainCpuMs" | "instructions" | "roundTrips" | "transactions") =>
      round(spent.reduce((sum, s) => sum + (s[key] ?? Number.NaN), 0) / runs, 2);
    const name =
      workers === "bare"
        ? "bare DBOS workflow, 1 worker"
        : workers === "B"
          ? "B: glassloop of BENCH_SCALE_AB, 1 worker"
          : `glassloop, ${workers} worker${workers > 1 ? "s" : ""}`;
    const byKind: Record<string, number> = {};
    for (const s of spent) for (const [k, v] of Object.entries(s.byKind)) byKind[k] = (byKind[k] ?? 0) + v;
    const server =
      serverBefore === undefined || serverAfter === undefined
        ? "n/a"
        : round((serverAfter - serverBefore) / runs, 2);
    const statements = process.env.BENCH_SCALE_PGSS
      ? await withPool(url, (pool) => topStatements(pool, runs + warm.length))
      : [];
    return {
      row: [
        name,
        runs,
        round(seconds, 2),
        round(runs / seconds, 1),
        per("cpuMs"),
        per("mainCpuMs"),
        server,
        ...(process.env.BENCH_SCALE_CALLGRIND ? [round(per("instructions") / 1e6, 3)] : []),
        per("roundTrips"),
        per("transactions"),
      ],
      kinds: `${name}: ${kindsPer(byKind, runs)}`,
      statements: statements.length > 0 ? [`${name}, ${statements[0]}`, ...statements.slice(1)] : [],
    };
  } finally {
    await bareClient?.destroy();
    await client?.close();
    for (const c of children) c.stop();
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
  // Fast settings by default: with fsync on, a shared machine's disk queue is the noise, and it
  // hits both sides alike; BENCH_SCALE_DURABLE=1 keeps the server's durable defaults.
  const durable = process.env.BENCH_SCALE_DURABLE === "1";
  const settings = durable
    ? "the server's durable defaults (fsync on, synchronous_commit on)"
    : "fsync off, synchronous_commit off, full_page_writes off (BENCH_SCALE_DURABLE=1: the durable defaults)";
  const cluster = await startCluster({
    durable,
    ...(process.env.BENCH_SCALE_PGSS && { settings: PGSS_SETTINGS }),
  });
  try {
    // BENCH_SCALE_ONLY=steps or =throughput: that table alone.
    const only = process.env.BENCH_SCALE_ONLY;
    // The cluster's CPU, read around the idle window.
    const serverCpu = () => serverCpuMs(cluster.dir);
    if (only === "idle")
      return [await idleTable((name) => database(cluster.url, name), TIMING.pollMs, serverCpu)];
    const steps = only === "throughput" ? undefined : await perStep(cluster.url, settings);
    if (steps && only === "steps") return [steps];
    // Bare and glassloop with one worker twice, interleaved; then 2 and 4 glassloop workers.
    const plan = (process.env.BENCH_SCALE_PLAN ?? "bare,1,bare,1,2,4")
      .split(",")
      .map((w) => (w === "bare" || w === "B" ? w : Number(w)));
    const rows: (string | number)[][] = [];
    const kinds = new Map<string, string>();
    const statements = new Map<string, string[]>();
    for (const [i, n] of plan.entries()) {
      const { row, kinds: k, statements: s } = await throughput(cluster, n, i);
      rows.push(row);
      if (n === "bare" || n === 1 || n === "B") {
        kinds.set(String(n), k);
        statements.set(String(n), s);
      }
    }
    const best = (prefix: string) =>
      Math.max(...rows.filter((r) => String(r[0]).startsWith(prefix)).map((r) => Number(r[3])));
    const ratio = best("glassloop, 1 worker") / best("bare");
    const ratioB = best("B: ") / best("bare");
    const tp: BenchTable = {
      title: `Scale-out: throughput of a 5-step zero-latency agent (${process.env.BENCH_SCALE_RUNS ?? 60} runs, worker processes with concurrency ${WORKER_CONCURRENCY})`,
      columns: [
        "workers",
        "runs",
        "seconds",
        "runs/s",
        "worker CPU ms/run",
        "main thread",
        "Postgres CPU ms/run",
        ...(process.env.BENCH_SCALE_CALLGRIND ? ["M instructions/run"] : []),
        "round trips/run",
        "transactions/run",
      ],
      rows,
      notes: [
        `glassloop with 1 worker / the bare DBOS workflow with 1 worker (best of each): ${round(ratio, 2)} (target ≥ 0.8).`,
        ...(plan.includes("B") ? [`B (BENCH_SCALE_AB) / bare, best of each: ${round(ratioB, 2)}.`] : []),
        "Worker CPU, round trips and transactions: what the worker processes spent from the first enqueue to the last run's end (queue polls, leases included), per run; main thread: the part of the CPU on the JavaScript thread (the rest: V8's compiler and GC threads).",
        "Postgres CPU: the cluster's processes (its backends: the workers', the client's) over the same window, per run; on this machine's cores beside the workers.",
        ...[...kinds.values()].map((k) => `By kind per run, ${k}.`),
        ...[...statements.values()].flat(),
        `Postgres: ${settings}.`,
        `This machine: ${cpus().length} cores shared by the workers, Postgres and the client; on 2 cores more workers mostly add contention.`,
      ],
    };
    if (!steps) return [tp];
    const fo = await failover(cluster.url);
    const idle = await idleTable((name) => database(cluster.url, name), TIMING.pollMs, serverCpu);
    return [steps, tp, fo, idle];
  } finally {
    cluster.stop();
  }
}
