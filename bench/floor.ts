/**
 * glassloop against the floor: the same three-call task (two tool calls) run by a hand-written
 * loop over `node:http` with a keep-alive agent (the floor), the same loop over `fetch`, and
 * glassloop's `Agent` from its built bundle, each in its own process against one local mock
 * server; and the floor with zod loaded, glassloop's reference for the heap (it loads zod too). Runs interleave (every contender once per repeat, the order rotating) and the table shows
 * medians, so the machine's changing load hits every contender alike; compare the ratios.
 * `GLASSLOOP_BASELINE=<path to another build's dist/index.mjs>` adds that build as a contender
 * (before and after a change, in one sitting).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
// @ts-expect-error: a plain ES module shared with the contenders' processes, which load no TypeScript
import { startMock } from "./floor/mock.mjs";
import { builtEntry } from "./providers.js";
import { type BenchTable, round } from "./table.js";

const DIR = fileURLToPath(new URL("./floor/", import.meta.url));

/** What one contender's process measured. */
export interface FloorResult {
  tasks: number;
  wrong: number;
  sample?: string;
  importMs: number;
  /** The contender's own import, on top of a library it loads first (zod for glassloop). */
  importOwnMs: number;
  msPerTask: number;
  cpuMsPerTask: number;
  /** The part of `cpuMsPerTask` on the main thread (Linux; undefined elsewhere): the rest is V8's compiler and collector threads. */
  mainCpuMsPerTask?: number;
  tasksPerSec: number;
  heapMB: number;
}

interface Contender {
  label: string;
  file: string;
  entry?: string;
}

/** Runs one contender once in a fresh `node --expose-gc`; `extra` adds environment (PROFILE). */
export async function runContender(
  contender: Contender,
  baseURL: string,
  stream: boolean,
  extra: Record<string, string> = {},
): Promise<FloorResult> {
  const child = spawn(process.execPath, ["--expose-gc", `${DIR}harness.mjs`, `${DIR}${contender.file}`], {
    env: {
      ...process.env,
      BASE_URL: baseURL,
      STREAM: stream ? "1" : "0",
      WARMUP: String(warmup()),
      ROUNDS: String(rounds()),
      ...(contender.entry !== undefined && { GLASSLOOP_ENTRY: contender.entry }),
      ...extra,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d;
  });
  child.stderr.on("data", (d: Buffer) => {
    err += d;
  });
  const [code] = (await once(child, "exit")) as [number | null];
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`${contender.label} exited ${code}: ${(err || out).slice(-800)}`);
  const result = JSON.parse(line.slice(7)) as FloorResult;
  if (result.wrong > 0) throw new Error(`${contender.label}: ${result.wrong} wrong tasks; ${result.sample}`);
  return result;
}

/** The floor with zod loaded: glassloop's heap is also read against it (both hold zod's 3 MB). */
const ZOD_FLOOR = "raw node:http + zod (heap reference)";

/** The contenders: the floor first (ratios are against it). */
export function floorContenders(): Contender[] {
  const list: Contender[] = [
    { label: "raw node:http (floor)", file: "raw-http.mjs" },
    { label: "raw fetch", file: "raw-fetch.mjs" },
    { label: "glassloop", file: "glassloop.mjs", entry: builtEntry() },
    { label: ZOD_FLOOR, file: "raw-http-zod.mjs" },
  ];
  const baseline = process.env.GLASSLOOP_BASELINE;
  if (baseline) list.push({ label: "glassloop (baseline build)", file: "glassloop.mjs", entry: baseline });
  return list;
}

/** Runs every measurement of this section. */
export async function floorBench(): Promise<BenchTable[]> {
  const repeats = Number(process.env.BENCH_FLOOR_REPEAT ?? 5);
  const contenders = floorContenders();
  const mock = (await startMock()) as { url: string; stop: () => Promise<void> };
  const load = [loadavg()[0] ?? 0];
  const results = new Map<string, FloorResult[]>();
  try {
    for (let r = 0; r < repeats; r++) {
      for (const stream of [false, true]) {
        // Rotate who goes first: a slow phase of the machine then hits each contender in turn.
        const order = contenders.map((_, i) => contenders[(i + r) % contenders.length] as Contender);
        for (const c of order) {
          const key = `${c.label}|${stream}`;
          const list = results.get(key) ?? [];
          list.push(await runContender(c, mock.url, stream));
          results.set(key, list);
        }
      }
      load.push(loadavg()[0] ?? 0);
    }
  } finally {
    await mock.stop();
  }
  return [false, true].map((stream) => tableOf(stream, contenders, results, repeats, load));
}

function tableOf(
  stream: boolean,
  contenders: Contender[],
  results: Map<string, FloorResult[]>,
  repeats: number,
  load: number[],
): BenchTable {
  const med = (label: string, pick: (r: FloorResult) => number) =>
    median((results.get(`${label}|${stream}`) ?? []).map(pick));
  const floor = contenders[0]?.label ?? "";
  const base = {
    ms: med(floor, (r) => r.msPerTask),
    cpu: med(floor, (r) => r.cpuMsPerTask),
    tps: med(floor, (r) => r.tasksPerSec),
    heap: med(floor, (r) => r.heapMB),
    main: med(floor, (r) => r.mainCpuMsPerTask ?? Number.NaN),
  };
  const rows = contenders.map((c) => {
    const ms = med(c.label, (r) => r.msPerTask);
    const cpu = med(c.label, (r) => r.cpuMsPerTask);
    const tps = med(c.label, (r) => r.tasksPerSec);
    const heap = med(c.label, (r) => r.heapMB);
    const main = med(c.label, (r) => r.mainCpuMsPerTask ?? Number.NaN);
    return [
      c.label,
      round(ms, 2),
      round((ms - base.ms) / 3, 3),
      round(cpu, 2),
      round(cpu / base.cpu, 2),
      Number.isNaN(main) ? "n/a" : round(main / base.main, 2),
      round(tps, 0),
      round(tps / base.tps, 2),
      round(heap, 1),
      round(heap / base.heap, 2),
      round(
        med(c.label, (r) => r.importMs),
        0,
      ),
      round(
        med(c.label, (r) => r.importOwnMs),
        0,
      ),
    ];
  });
  const zodHeap = med(ZOD_FLOOR, (r) => r.heapMB);
  const ownHeap = (label: string) => round(med(label, (r) => r.heapMB) / zodHeap, 2);
  const glassloops = contenders.filter((c) => c.file === "glassloop.mjs");
  return {
    title: `The floor, side by side: a three-call task, ${stream ? "streamed (SSE)" : "JSON"}`,
    columns: [
      "contender",
      "ms/task",
      "Δ ms/call",
      "CPU ms/task",
      "CPU ×floor",
      "main thread ×floor",
      "tasks/s @50",
      "×floor",
      "heap MB @500",
      "×floor",
      "import ms",
      "own import ms",
    ],
    rows,
    notes: [
      "Targets for glassloop: Δ ≤ 0.15 ms per model call, CPU ≤ 1.3×, tasks/s ≥ 0.8×, heap ≤ 1.6× the floor.",
      `Medians of ${repeats} interleaved runs, each a fresh process: ${warmup()} warm-up, 200 sequential tasks (ms, CPU),`,
      `${rounds()} rounds of 50 concurrent (tasks/s), heap after ${Math.max(500, warmup() + 200 + 50 * rounds())} tasks and a forced GC; import includes zod for glassloop;`,
      "own import: glassloop's on top of zod (target ≤ 40 ms), timed inside the same process after zod's.",
      "Main thread: the CPU of the JavaScript thread alone (Linux, 10 ms ticks); CPU adds V8's compiler and GC threads.",
      `Heap against the floor with zod loaded (both hold zod): ${glassloops.map((c) => `${c.label} ${ownHeap(c.label)}×`).join(", ")}.`,
      "That row runs the floor's own loop: how far its per-call columns stray from 1× is the sitting's noise.",
      "With few warm-up tasks the window also pays V8's optimizing compiler for each contender's hot code;",
      "BENCH_FLOOR_WARMUP=1000 measures the steady state a long-lived process reaches.",
      `Mock server in the bench's process, 0 ms latency. Load average (1 min) during the runs: ${load.map((l) => l.toFixed(2)).join(", ")}.`,
    ],
  };
}

/** Rounds of 50 concurrent tasks for the tasks/s column (`BENCH_FLOOR_ROUNDS`, default 3). */
function rounds(): number {
  return Number(process.env.BENCH_FLOOR_ROUNDS ?? 3);
}

/** Tasks each contender runs before the measured window (`BENCH_FLOOR_WARMUP`, default 20). */
function warmup(): number {
  return Number(process.env.BENCH_FLOOR_WARMUP ?? 20);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? 0;
}
