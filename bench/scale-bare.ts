/**
 * The floor of `npm run bench -- scale`: a bare DBOS workflow with the same steps as a glassloop
 * run (per step: a step returning a model's answer, a step returning a tool's result), in its own
 * process on its own database. Prints `RESULT {"msPerStep": …}`: the workflow's own duration per
 * step, best of 5 after a warm-up. Usage: `node --import tsx bench/scale-bare.ts <postgres url> <steps>`.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";

const [url, stepsArg] = process.argv.slice(2);
if (!url) throw new Error("usage: scale-bare.ts <postgres url> <steps>");
const steps = Number(stepsArg ?? 50);

/** What a zero-latency model answers: one call of the tool (the shape glassloop records). */
const answer = (i: number) => ({
  text: "",
  toolCalls: [{ id: `call_${i}`, name: "echo", arguments: JSON.stringify({ i }) }],
  usage: { inputTokens: 10, outputTokens: 5 },
  finishReason: "tool_calls",
});

async function bare(): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < steps; i++) {
    const call = await DBOS.runStep(async () => answer(i), { name: "model" });
    await DBOS.runStep(async () => JSON.parse(call.toolCalls[0]?.arguments ?? "{}").i as number, {
      name: "echo",
    });
  }
  return (performance.now() - started) / steps;
}

DBOS.setConfig({ name: "bench-bare", systemDatabaseUrl: url, logLevel: "error" });
const workflow = DBOS.registerWorkflow(bare, { name: "bare" });
await DBOS.launch();
try {
  await workflow();
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) samples.push(await workflow());
  process.stdout.write(`RESULT ${JSON.stringify({ msPerStep: Math.min(...samples) })}\n`);
} finally {
  await DBOS.shutdown();
}
process.exit(0);
