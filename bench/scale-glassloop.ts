/**
 * The glassloop side of `npm run bench -- scale`'s per-step comparison: a worker in its own
 * process (as the bare workflow of bench/scale-bare.ts is), with a zero-latency agent of `steps`
 * steps, `zero` (an idempotent tool) and `marked` (a non-idempotent one: a start marker too).
 * After each run's last model call it prints `STEP {…}`: wall ms, CPU ms and Postgres round
 * trips and transactions per step, counted from the first model call to the last, the bare
 * workflow's window. The bench enqueues the runs with a ScaleClient from its own process. Lines
 * on stdin: `mark`, then `spent` prints `SPENT {…}` with the CPU and Postgres traffic since.
 *
 * Usage: `node --import tsx bench/scale-glassloop.ts <postgres url> <steps> <pollMs> [id]`.
 */
import { createInterface } from "node:readline";
import { type Model, type ModelObserver, type ModelRequest, type ModelResponse, tool } from "glassloop";
import { defineWorker, startWorker } from "glassloop/scale";
import { z } from "zod";
import { countPgQueries, SpentSince, StepWindow } from "./pg-count.js";
import { WORKER_CONCURRENCY } from "./scale-settings.js";
import { ZeroLatencyModel } from "./zero-model.js";

const [url, stepsArg, pollArg, idArg] = process.argv.slice(2);
if (!url) throw new Error("usage: scale-glassloop.ts <postgres url> <steps> <pollMs> [id]");
const steps = Number(stepsArg ?? 50);
countPgQueries();
const window = new StepWindow();

/** The zero-latency model, with the window's marks at the start of each call. */
class MeasuredModel implements Model {
  readonly id = "bench:zero-latency";
  readonly #inner = new ZeroLatencyModel(steps);
  #calls = 0;

  generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    window.model(++this.#calls, steps);
    if (this.#calls === steps) {
      const cost = window.cost(steps);
      if (cost) process.stdout.write(`STEP ${JSON.stringify(cost)}\n`);
    }
    return this.#inner.generate(request, observer);
  }
}

const echo = (idempotent: boolean) =>
  tool({
    name: "echo",
    description: "Returns its argument.",
    input: z.object({ i: z.number() }),
    idempotent,
    run: ({ i }) => i,
  });
// Built once per worker, as a worker module defines its tools (bench/scale-worker.ts): a tool
// built in the factory would convert its schema to JSON Schema and compile its zod parser on
// every run (~0.2 ms of worker CPU per run, which the bare workflow does not pay).
const tools = { zero: echo(true), marked: echo(false) };
const agent = (kind: keyof typeof tools) => () => ({
  instructions: "Bench.",
  model: new MeasuredModel(),
  tools: [tools[kind]],
  limits: { maxSteps: 100_000 },
});

const worker = await startWorker({
  url,
  module: defineWorker({ agents: { zero: agent("zero"), marked: agent("marked") } }),
  id: idArg ?? "bench-steps",
  pollMs: Number(pollArg ?? 50),
  concurrency: WORKER_CONCURRENCY,
  logLevel: "error",
});
process.stdout.write("READY\n");
const since = new SpentSince();
for await (const line of createInterface({ input: process.stdin })) {
  if (line === "mark") await since.mark();
  if (line === "spent") process.stdout.write(`SPENT ${JSON.stringify(await since.spent())}\n`);
}
await worker.stop(1_000);
process.exit(0);
