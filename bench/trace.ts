import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, tool } from "glassloop";
import { diffRequests, readTraceFile, TraceWriter } from "glassloop/trace";
import { z } from "zod";
import { type BenchTable, round } from "./table.js";
import { ZeroLatencyModel } from "./zero-model.js";

const echo = tool({
  name: "echo",
  description: "Returns its argument.",
  input: z.object({ i: z.number() }),
  run: ({ i }) => i,
});

async function run(steps: number, writer: TraceWriter | undefined): Promise<string> {
  const agent = new Agent({
    instructions: "Bench.",
    model: new ZeroLatencyModel(steps),
    tools: [echo],
    limits: { maxSteps: 100_000 },
  });
  const result = await agent.run("go", writer ? { onEvent: writer.onEvent } : {});
  return result.runId;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

async function perStep(steps: number, traced: boolean, dir: string): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < 7; i++) {
    const writer = traced ? new TraceWriter({ dir }) : undefined;
    const started = performance.now();
    await run(steps, writer);
    samples.push(((performance.now() - started) * 1000) / steps);
  }
  return median(samples);
}

/** What tracing costs: the writer's overhead per step, trace size, reading and diffing speed. */
export async function traceBench(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-bench-trace-"));
  try {
    for (let i = 0; i < 10; i++) await run(50, new TraceWriter({ dir })); // warm up
    const rows: (string | number)[][] = [];
    for (const steps of [20, 100]) {
      const plain = await perStep(steps, false, dir);
      const traced = await perStep(steps, true, dir);
      const writer = new TraceWriter({ dir });
      const runId = await run(steps, writer);
      const file = writer.pathOf(runId);
      const bytes = statSync(file).size;
      const readStarted = performance.now();
      const view = readTraceFile(file).runs[0];
      const readMs = performance.now() - readStarted;
      if (view?.steps.length !== steps) throw new Error("bench: the trace lost steps");
      rows.push([
        steps,
        round(plain, 1),
        round(traced, 1),
        round(traced - plain, 1),
        round(bytes / 1024, 1),
        round(readMs, 2),
      ]);
    }

    const message = (i: number) => ({
      role: i % 2 ? "assistant" : "user",
      content: `message ${i} `.repeat(20),
    });
    const before = { model: "m", messages: Array.from({ length: 200 }, (_, i) => message(i)), tools: [] };
    const after = { ...before, messages: [...before.messages, message(200), message(201)] };
    const diffSamples: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      diffRequests(before, after);
      diffSamples.push((performance.now() - started) * 1000);
    }
    return [
      {
        title: "Trace writer (zero-latency model, one tool call per step, redaction on)",
        columns: [
          "steps",
          "µs/step plain",
          "µs/step traced",
          "overhead µs/step",
          "trace KiB",
          "read+rebuild ms",
        ],
        rows,
        notes: [
          "Every request body is the whole history, so a trace grows with the square of the steps: that is the exact wire payload, kept on purpose.",
          `Prompt diff of two 200-message requests: median ${round(median(diffSamples), 0)} µs.`,
        ],
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
