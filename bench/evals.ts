import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type Model, tool } from "glassloop";
import { contains, dataset, evaluate, noToolErrors, toolsCalled } from "glassloop/evals";
import { z } from "zod";
import { type BenchTable, round } from "./table.js";
import { ZeroLatencyModel } from "./zero-model.js";

const echo = tool({
  name: "echo",
  description: "Returns its argument.",
  input: z.object({ i: z.number() }),
  run: ({ i }) => i,
});

const STEPS = 3;
const CASES = 200;
const cases = dataset(
  "bench",
  Array.from({ length: CASES }, (_, i) => ({ input: `case ${i}`, expected: "done" })),
);
const agentFor = (model: Model) => new Agent({ instructions: "Bench.", model, tools: [echo] });
const scorers = [contains(), toolsCalled(["echo"]), noToolErrors()];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

/** Microseconds per case: the median of `rounds` timings of all cases, one at a time. */
async function perCase(rounds: number, once: () => Promise<void>): Promise<number> {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    await once();
    samples.push(((performance.now() - started) * 1000) / CASES);
  }
  return median(samples);
}

/** What `evaluate` adds per case over running the same agent on the same inputs by hand. */
export async function evalsBench(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-bench-evals-"));
  const plain = () => async () => {
    for (const c of cases.cases) await agentFor(new ZeroLatencyModel(STEPS)).run(c.input);
  };
  const evaluated = (traced: boolean) => async () => {
    await evaluate({
      agent: () => agentFor(new ZeroLatencyModel(STEPS)),
      dataset: cases,
      scorers,
      concurrency: 1,
      ...(traced && { outDir: join(dir, `run-${Math.random().toString(36).slice(2)}`) }),
    });
  };
  try {
    // Warm the JIT on both paths before measuring.
    await plain()();
    await evaluated(false)();
    const base = await perCase(5, plain());
    const untraced = await perCase(5, evaluated(false));
    const traced = await perCase(5, evaluated(true));
    return [
      {
        title: `evals: evaluate() overhead per case (${CASES} cases, ${STEPS} model calls each, zero-latency model)`,
        columns: ["how", "µs per case", "overhead µs per case"],
        rows: [
          ["agent.run() in a loop", round(base, 0), 0],
          ["evaluate(), 3 scorers, no files", round(untraced, 0), round(untraced - base, 0)],
          ["evaluate(), 3 scorers, traced to disk", round(traced, 0), round(traced - base, 0)],
        ],
        notes: [
          "Overhead = trajectory recording, scoring, the combine rule and the statistics; traced adds one JSONL file per trial.",
          "With a real model a case takes hundreds of milliseconds: this is the harness's share of it.",
        ],
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
