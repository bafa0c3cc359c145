import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Agent, tool } from "glassloop";
import { z } from "zod";
import { type BenchTable, round } from "./table.js";
import { ZeroLatencyModel } from "./zero-model.js";

const echo = tool({
  name: "echo",
  description: "Returns its argument.",
  input: z.object({ i: z.number() }),
  run: ({ i }) => i,
});

function agentFor(model: ZeroLatencyModel): Agent {
  return new Agent({ instructions: "Bench.", model, tools: [echo], limits: { maxSteps: 100_000 } });
}

type Mode = "run" | "run+onEvent" | "stream";

async function runOnce(steps: number, mode: Mode): Promise<ZeroLatencyModel> {
  const model = new ZeroLatencyModel(steps);
  const agent = agentFor(model);
  if (mode === "stream") {
    const stream = agent.stream("go");
    for await (const _ of stream);
    await stream.result;
  } else {
    let events = 0;
    await agent.run("go", mode === "run" ? {} : { onEvent: () => void events++ });
  }
  return model;
}

/** Mean microseconds per step over `runs` runs of `steps` steps: wall clock and CPU time. */
async function overhead(mode: Mode, runs: number, steps: number): Promise<{ wall: number; cpu: number }> {
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < runs; i++) await runOnce(steps, mode);
  const wall = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const perStep = 1000 / (runs * steps);
  return { wall: wall * perStep, cpu: ((cpu.user + cpu.system) / 1000) * perStep };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

/** Microseconds of each step `from`..`to` (1-based, inclusive) of one run: mean and median. */
function window(stamps: number[], from: number, to: number): { mean: number; median: number } {
  // Step k lasts from the k-th model call to the (k+1)-th.
  const durations: number[] = [];
  for (let k = from; k <= to; k++) durations.push(((stamps[k] ?? 0) - (stamps[k - 1] ?? 0)) * 1000);
  const mean = durations.reduce((a, b) => a + b, 0) / durations.length;
  durations.sort((a, b) => a - b);
  return { mean, median: durations[durations.length >> 1] ?? 0 };
}

const collectGarbage = (() => {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

function heapUsed(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Measures the loop against a zero-latency model: overhead per step, growth over 1,000 steps, heap. */
export async function loopBench(): Promise<BenchTable[]> {
  for (let i = 0; i < 30; i++) await runOnce(100, i % 2 ? "run" : "stream"); // warm up the JIT

  const overheadRows: (string | number)[][] = [];
  for (const mode of ["run", "run+onEvent", "stream"] as const) {
    const samples = [];
    for (let i = 0; i < 7; i++) samples.push(await overhead(mode, 20, 100));
    overheadRows.push([
      mode === "run+onEvent" ? "run() + onEvent" : `${mode}()`,
      round(median(samples.map((s) => s.wall))),
      round(median(samples.map((s) => s.cpu))),
      50,
    ]);
  }

  const longSteps = 1000;
  const growthRows: (string | number)[][] = [];
  for (const mode of ["run", "stream"] as const) {
    const model = await runOnce(longSteps, mode);
    const head = window(model.stamps, 1, 100);
    const tail = window(model.stamps, longSteps - 100, longSteps - 1);
    growthRows.push([
      mode,
      round(head.median),
      round(tail.median),
      round(tail.median / head.median),
      round(head.mean),
      round(tail.mean),
      round(tail.mean / head.mean),
    ]);
  }

  const before = heapUsed();
  const model = new ZeroLatencyModel(longSteps);
  const result = await agentFor(model).run("go");
  const held = heapUsed();
  const transcriptBytes = JSON.stringify(result.messages).length;
  const usageBytes = JSON.stringify(result.usage).length;
  const perStep = (held - before) / longSteps;
  const heapRows = [
    ["heap held per step, result kept (bytes)", round(perStep, 0)],
    ["transcript JSON per step (bytes)", round(transcriptBytes / longSteps, 0)],
    ["usage JSON per step (bytes)", round(usageBytes / longSteps, 0)],
  ];
  // Drop everything and check nothing of the run stays behind.
  result.messages.length = 0;
  const after = heapUsed();
  heapRows.push(["heap left after the run, per step (bytes)", round((after - before) / longSteps, 0)]);

  return [
    {
      title: "Loop overhead per step (zero-latency model, one tool call per step)",
      columns: ["mode", "wall µs/step", "CPU µs/step", "target µs"],
      rows: overheadRows,
      notes: [
        "A step: budget check, model call, assistant message, argument validation, one tool run, its result,",
        "events. Median of 7 samples of 20 runs × 100 steps. CPU time (process user+system, GC threads",
        "included) is the steadier figure on a busy machine; wall time is what a caller waits.",
      ],
    },
    {
      title: `Per-step time over one ${longSteps}-step run`,
      columns: [
        "mode",
        "first 100 median µs",
        "last 100 median µs",
        "ratio",
        "first 100 mean µs",
        "last 100 mean µs",
        "ratio",
      ],
      rows: growthRows,
      notes: [
        "first 100 = steps 1-100, last 100 = steps 900-999 of the same run. Medians leave out GC pauses;",
        "means include them. A ratio near 1 means no per-step cost that grows with the run.",
      ],
    },
    {
      title: `Heap over one ${longSteps}-step run`,
      columns: ["measure", "value"],
      rows: heapRows,
    },
  ];
}
