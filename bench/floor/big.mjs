// One streamed answer of BYTES bytes (100-character text deltas) through glassloop's Agent.stream,
// a TraceWriter on (text deltas included) and every event consumed, in its own process:
// node --expose-gc big.mjs   env: GLASSLOOP_ENTRY, BASE_URL (the mock's /v1), BYTES, TRACE_DIR.
// Prints "RESULT {json}": ms, peak RSS growth over the process before the run, memory after the run
// (answer still held) and after it is dropped: V8's heap plus what lives off it (external strings,
// array buffers), since a long answer may be held there.
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const entry = process.env.GLASSLOOP_ENTRY;
if (!entry) throw new Error("set GLASSLOOP_ENTRY to glassloop's dist/index.mjs");
const { Agent } = await import(pathToFileURL(entry).href);
const { TraceWriter } = await import(pathToFileURL(join(dirname(entry), "trace.mjs")).href);
const bytes = Number(process.env.BYTES);
const mb = (n) => n / 2 ** 20;
// Collected twice with turns of the event loop between: what a pending callback held goes too,
// and the sweeper finishes before the heap is read.
const gc = async () => {
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
};

const agentFor = (size) => {
  // The model reads its base URL from the environment when the agent is built.
  process.env.OPENAI_BASE_URL = `${process.env.BASE_URL.replace(/\/v1$/, "")}/big/${size}/v1`;
  process.env.OPENAI_API_KEY = "sk-mock";
  return new Agent({ instructions: "Write.", model: "openai:gpt-4o-mini", limits: { maxSteps: 1 } });
};

async function once(size) {
  const writer = process.env.TRACE === "0" ? undefined : new TraceWriter({ dir: process.env.TRACE_DIR });
  let chars = 0;
  let result;
  for await (const event of agentFor(size).stream("go", writer ? { onEvent: writer.onEvent } : {})) {
    if (event.type === "text_delta") chars += event.text.length;
    if (event.type === "run_end") result = event;
  }
  writer?.close();
  return { chars, result };
}

await once(10_000); // warm-up: modules loaded, code compiled
await gc();
const held = () => {
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
};
const rssBefore = process.memoryUsage().rss;
const heapBefore = held();
const started = performance.now();
const cpu0 = process.cpuUsage();
let run = await once(bytes);
const ms = performance.now() - started;
const cpu = process.cpuUsage(cpu0);
const peakGrowth = process.resourceUsage().maxRSS * 1024 - rssBefore;
await gc();
const heapHeld = held() - heapBefore;
const chars = run.chars;
const output = run.result?.output?.length ?? 0;
run = undefined;
await gc();
const heapAfter = held() - heapBefore;
process.stdout.write(
  `RESULT ${JSON.stringify({ bytes, chars, output, ms, cpuMs: (cpu.user + cpu.system) / 1000, peakGrowthMB: mb(peakGrowth), heapHeldMB: mb(heapHeld), heapAfterMB: mb(heapAfter) })}\n`,
);
process.exit(0);
