import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, tracedCalculatorRun } from "./traced-run.js";

/**
 * The calculator run's trace as a distributed run's (`glassloop enqueue --trace`) would read
 * after a failover: each event with the worker that wrote it, `w1` until it died in step 2 after
 * the model's answer, `w2` from that step's tool call on.
 */
export async function failedOverTrace(
  dir: string = tempDir(),
): Promise<{ dir: string; file: string; runId: string }> {
  const { result, file } = await tracedCalculatorRun(dir);
  let worker = "w1";
  const lines = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((raw) => {
      const record = JSON.parse(raw) as { type: string; step?: number };
      if (record.type === "trace_header") return raw;
      if (record.type === "tool_call" && record.step === 2) worker = "w2";
      return JSON.stringify({ ...record, worker });
    });
  const out = join(dir, `${result.runId}.jsonl`);
  writeFileSync(out, `${lines.join("\n")}\n`);
  return { dir, file: out, runId: result.runId };
}
