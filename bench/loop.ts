import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Agent, type RunResult, tool } from "glassloop";
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

/**
 * Microseconds per step over `runs` runs of `steps` steps: mean wall clock and CPU time (runs'
 * set-up and GC included), and the median single step (what a step costs when it has the core).
 */
async function overhead(
  mode: Mode,
  runs: number,
  steps: number,
): Promise<{ wall: number; cpu: number; step: number }> {
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const durations: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { stamps } = await runOnce(steps, mode);
    for (let k = 1; k < stamps.length; k++) durations.push(((stamps[k] ?? 0) - (stamps[k - 1] ?? 0)) * 1000);
  }
  const wall = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const perStep = 1000 / (runs * steps);
  return { wall: wall * perStep, cpu: ((cpu.user + cpu.system) / 1000) * perStep, step: median(durations) };
}

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

/** Heap in use after full collections; awaits between them so settled promises let go of their values. */
async function heapUsed(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return process.memoryUsage().heapUsed;
}

function copyHistory(result: RunResult<string>): unknown {
  return structuredClone({ messages: result.messages, usage: result.usage });
}

/** Heap per step: held by a run's result, taken by a copy of that history, and left after dropping it. */
async function heapPerStep(steps: number): Promise<{ held: number; history: number; left: number }> {
  const before = await heapUsed();
  // Only `kept` references the result and its copy, so emptying it frees both.
  const kept: unknown[] = [await agentFor(new ZeroLatencyModel(steps)).run("go")];
  const held = (await heapUsed()) - before;
  kept.push(copyHistory(kept[0] as RunResult<string>));
  const history = (await heapUsed()) - before - held;
  kept.length = 0;
  const left = (await heapUsed()) - before;
  return { held: held / steps, history: history / steps, left: left / steps };
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
      round(median(samples.map((s) => s.step))),
      50,
    ]);
  }

  const longSteps = 1000;
  const growthRows: (string | number)[][] = [];
  for (const mode of ["run", "stream"] as const) {
    // Three runs each; the row is the run with the median ratio, so one GC-heavy run cannot skew it.
    const trials = [];
    for (let i = 0; i < 3; i++) {
      const model = await runOnce(longSteps, mode);
      trials.push({
        head: window(model.stamps, 1, 100),
        tail: window(model.stamps, longSteps - 100, longSteps - 1),
      });
    }
    trials.sort((a, b) => a.tail.median / a.head.median - b.tail.median / b.head.median);
    const { head, tail } = trials[1] ?? { head: { mean: 0, median: 0 }, tail: { mean: 0, median: 0 } };
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

  const heap = await heapPerStep(longSteps);
  const heapRows = [
    ["heap held by the finished run's result, per step (bytes)", round(heap.held, 0)],
    ["heap of a deep copy of its messages and usage, per step (bytes)", round(heap.history, 0)],
    ["held / copy", round(heap.held / heap.history)],
    ["heap left once the result is dropped, per step (bytes)", round(heap.left, 0)],
  ];

  return [
    {
      title: "Loop overhead per step (zero-latency model, one tool call per step)",
      columns: ["mode", "wall µs/step", "CPU µs/step", "median step µs", "target µs"],
      rows: overheadRows,
      notes: [
        "A step: budget check, model call, assistant message, argument validation, one tool run, its result,",
        "events. Median of 7 samples of 20 runs × 100 steps. wall and CPU are means (run set-up and GC",
        "included; CPU counts GC helper threads too); the median step is the typical step with the core",
        "to itself, the steadiest figure when other processes compete for the CPU.",
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
        "means include them. A ratio near 1 means no per-step cost that grows with the run; what is left",
        "(~1 µs at step 1,000) is the copy of the message array each request gets, i.e. the history itself.",
      ],
    },
    {
      title: `Heap over one ${longSteps}-step run`,
      columns: ["measure", "value"],
      rows: heapRows,
      notes: [
        "held / copy near 1: what a run keeps is its history (transcript and per-step usage), nothing more;",
        "left near 0: nothing of the run stays behind.",
      ],
    },
  ];
}
