/**
 * The floor of `npm run bench -- scale`: a bare DBOS workflow with the same steps as a glassloop
 * run (per step: a step returning a model's answer, a step returning a tool's result), in its own
 * process on its own database. Two modes:
 *
 * - `steps`: for each line `run <steps>` on stdin, runs the workflow once in this process and
 *   prints `STEP {…}`: wall ms, CPU ms and Postgres round trips and transactions per step,
 *   counted from the first model step to the last (the same window as bench/scale-glassloop.ts).
 * - `worker <pollMs>`: consumes the queue `bare` (8 at a time, like a glassloop worker) and
 *   prints `READY`; the bench enqueues runs of the workflow `bare` with a DBOS client.
 *
 * In both, `mark` and then `spent` on stdin prints `SPENT {…}`: the CPU and Postgres traffic since.
 *
 * Usage: `node --import tsx bench/scale-bare.ts <postgres url> steps|worker [pollMs]`.
 */
import { createInterface } from "node:readline";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { registerInternalQueue } from "@dbos-inc/dbos-sdk/internal/wfqueue";
import { countPgQueries, SpentSince, StepWindow } from "./pg-count.js";
import { WORKER_CONCURRENCY } from "./scale-settings.js";

const [url, mode, pollArg] = process.argv.slice(2);
if (!url || (mode !== "steps" && mode !== "worker"))
  throw new Error("usage: scale-bare.ts <postgres url> steps|worker [pollMs]");
countPgQueries();

/** What a zero-latency model answers: one call of the tool (the shape glassloop records). */
const answer = (i: number, steps: number) =>
  i >= steps
    ? { text: "done", toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, finishReason: "stop" }
    : {
        text: "",
        toolCalls: [{ id: `call_${i}`, name: "echo", arguments: `{"i":${i}}` }],
        usage: { inputTokens: 1, outputTokens: 1 },
        finishReason: "tool_calls",
      };

const window = new StepWindow();

/** As many model steps as a glassloop run of `steps` steps, each but the last followed by a tool step. */
async function bare(steps: number): Promise<number> {
  let done = 0;
  for (let i = 1; i <= steps; i++) {
    const call = await DBOS.runStep(
      async () => {
        window.model(i, steps);
        return answer(i, steps);
      },
      { name: "model" },
    );
    const args = call.toolCalls[0]?.arguments;
    if (args === undefined) break;
    done += await DBOS.runStep(async () => JSON.parse(args).i as number, { name: "echo" });
  }
  return done;
}

DBOS.setConfig({ name: "bench-bare", systemDatabaseUrl: url, logLevel: "error" });
const workflow = DBOS.registerWorkflow(bare, { name: "bare" });
// A process-local queue, as a glassloop worker's (src/scale/worker-queue.ts).
if (mode === "worker")
  registerInternalQueue("bare", {
    workerConcurrency: WORKER_CONCURRENCY,
    minPollingIntervalMs: Number(pollArg ?? 50),
  });
await DBOS.launch();
process.stdout.write("READY\n");
const since = new SpentSince();
for await (const line of createInterface({ input: process.stdin })) {
  const [command, stepsArg] = line.trim().split(" ");
  if (command === "mark") await since.mark();
  else if (command === "spent") process.stdout.write(`SPENT ${JSON.stringify(await since.spent())}\n`);
  else if (command === "run") {
    const steps = Number(stepsArg);
    await workflow(steps);
    const result = window.cost(steps);
    if (!result) throw new Error("the bare workflow did not run its steps");
    process.stdout.write(`STEP ${JSON.stringify(result)}\n`);
  }
}
await DBOS.shutdown();
process.exit(0);
