/**
 * A big streamed answer: text deltas of 100 characters through `Agent.stream`, every event
 * consumed, a `TraceWriter` writing every delta, each size in a fresh process against the floor
 * bench's mock server. Time per MB must stay flat as the answer grows (no quadratic copying), the
 * peak RSS growth within 3× the answer, and after the run nothing of the answer may stay.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
// @ts-expect-error: a plain ES module shared with the contenders' processes, which load no TypeScript
import { startMock } from "./floor/mock.mjs";
import { builtEntry } from "./providers.js";
import { type BenchTable, round } from "./table.js";

const BIG = fileURLToPath(new URL("./floor/big.mjs", import.meta.url));

interface BigResult {
  bytes: number;
  chars: number;
  output: number;
  ms: number;
  cpuMs: number;
  peakGrowthMB: number;
  heapHeldMB: number;
  heapAfterMB: number;
}

async function runBig(url: string, bytes: number, dir: string, trace: boolean): Promise<BigResult> {
  const child = spawn(process.execPath, ["--expose-gc", BIG], {
    env: {
      ...process.env,
      GLASSLOOP_ENTRY: builtEntry(),
      BASE_URL: url,
      BYTES: String(bytes),
      TRACE_DIR: dir,
      TRACE: trace ? "1" : "0",
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
  if (!line) throw new Error(`big answer of ${bytes} exited ${code}: ${(err || out).slice(-800)}`);
  const result = JSON.parse(line.slice(7)) as BigResult;
  if (result.output !== bytes || result.chars !== bytes)
    throw new Error(
      `big answer of ${bytes}: ${result.chars} delta characters, ${result.output} in the output`,
    );
  return result;
}

/** Runs every measurement of this section. */
export async function streamMemoryBench(): Promise<BenchTable[]> {
  const mock = (await startMock()) as { url: string; stop: () => Promise<void> };
  const dir = mkdtempSync(join(tmpdir(), "glassloop-bench-big-"));
  const load = [loadavg()[0] ?? 0];
  const rows: (string | number)[][] = [];
  try {
    const cases: [number, boolean][] = [
      [1, true],
      [5, true],
      [10, true],
      [20, true],
      [20, false],
    ];
    for (const [mb, trace] of cases) {
      const bytes = mb * 1_000_000;
      const r = await runBig(mock.url, bytes, dir, trace);
      rows.push([
        `${mb} MB${trace ? "" : ", no trace"}`,
        round(r.ms, 0),
        round(r.ms / mb, 0),
        round(r.cpuMs / mb, 0),
        round(r.peakGrowthMB, 1),
        round(r.peakGrowthMB / (bytes / 2 ** 20), 2),
        round(r.heapHeldMB, 1),
        round(r.heapAfterMB, 2),
      ]);
      load.push(loadavg()[0] ?? 0);
    }
  } finally {
    await mock.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    {
      title: "A big streamed answer: 100-character text deltas, every event consumed, a trace on",
      columns: [
        "answer",
        "ms",
        "ms per MB",
        "CPU ms per MB",
        "peak RSS growth MB",
        "× answer",
        "heap held after MB",
        "heap after drop MB",
      ],
      rows,
      notes: [
        "Targets: ms per MB flat from 1 to 20 MB; peak RSS growth ≤ 3× the answer; nothing left once the answer is dropped.",
        "Held after: V8's heap plus memory off it (external strings, array buffers), the run's result still referenced (the answer, flat, is all it should hold).",
        "The trace writes every delta (scrubbed as one stream, so a secret split across deltas is caught) and the whole answer again in model_response and run_end (in scrubbed 64 Ki-character slices).",
        "The answer is 100-character deltas of one letter: no word breaks, the dearest case for stream scrubbing (it holds up to 4 Ki characters).",
        `One fresh process per row. Load average (1 min): ${load.map((l) => l.toFixed(2)).join(", ")}.`,
      ],
    },
  ];
}
