// One contender in its own process: node --expose-gc harness.mjs <contender.mjs>
// env: BASE_URL, STREAM=1 (SSE), N (sequential tasks), M (concurrent tasks per round), ROUNDS,
// WARMUP, TOTAL (tasks run before the heap is measured), PROFILE=<file> (CPU profile of the
// sequential and concurrent phases). Prints one line "RESULT {json}".
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { mainThreadMs } from "./main-thread.mjs";
import { EXPECTED } from "./task.mjs";

const env = (name, fallback) => Number(process.env[name] ?? fallback);
const N = env("N", 200);
const M = env("M", 50);
const ROUNDS = env("ROUNDS", 3);
const WARMUP = env("WARMUP", 20);
const TOTAL = env("TOTAL", 500);
const gc = () => {
  globalThis.gc?.();
  globalThis.gc?.();
};
const mb = (bytes) => bytes / 2 ** 20;

const t0 = performance.now();
const mod = await import(pathToFileURL(process.argv[2]).href);
const importMs = performance.now() - t0;
const runTask = await mod.default({ baseURL: process.env.BASE_URL, stream: process.env.STREAM === "1" });

let tasks = 0;
let wrong = 0;
let sample;
async function one() {
  tasks++;
  try {
    const out = await runTask();
    if (String(out).trim() !== EXPECTED) {
      wrong++;
      sample ??= `output: ${JSON.stringify(out)}`;
    }
  } catch (error) {
    wrong++;
    sample ??= `error: ${error?.stack ?? error}`;
  }
}

for (let i = 0; i < WARMUP; i++) await one();

let profiler;
if (process.env.PROFILE) {
  profiler = new Session();
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.setSamplingInterval", { interval: 100 });
  await profiler.post("Profiler.start");
}

const seqMs = [];
const main0 = mainThreadMs();
const cpu0 = process.cpuUsage();
for (let i = 0; i < N; i++) {
  const started = performance.now();
  await one();
  seqMs.push(performance.now() - started);
}
const cpu = process.cpuUsage(cpu0);
const main1 = mainThreadMs();

let concMs = 0;
for (let r = 0; r < ROUNDS; r++) {
  const started = performance.now();
  await Promise.all(Array.from({ length: M }, one));
  concMs += performance.now() - started;
}

if (profiler) {
  const { profile } = await profiler.post("Profiler.stop");
  writeFileSync(process.env.PROFILE, JSON.stringify(profile));
}

while (tasks < TOTAL) await one();
gc();
const result = {
  tasks,
  wrong,
  sample,
  importMs,
  // A contender that loads a library on top of another (glassloop on zod) says which part is its own.
  importOwnMs: mod.importParts?.ownMs ?? importMs,
  msPerTask: seqMs.reduce((a, b) => a + b, 0) / N,
  cpuMsPerTask: (cpu.user + cpu.system) / 1000 / N,
  mainCpuMsPerTask: main0 === undefined || main1 === undefined ? undefined : (main1 - main0) / N,
  tasksPerSec: (M * ROUNDS) / (concMs / 1000),
  heapMB: mb(process.memoryUsage().heapUsed),
};
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
process.exit(0);
