import { formatRun, readTraceFile } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { failedOverTrace } from "../helpers/distributed-trace.js";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

describe("the run view of a distributed run", () => {
  it("names the worker of each step and tool call, both workers of a step that failed over, and the run's workers", async () => {
    const { file, runId } = await failedOverTrace();
    const [run] = readTraceFile(file).runs;
    expect(run?.runId).toBe(runId);
    expect(run?.workers).toEqual(["w1", "w2"]);
    expect(run?.steps.map((s) => s.workers)).toEqual([["w1"], ["w1", "w2"], ["w2"]]);
    expect(run?.steps.map((s) => s.tools.map((t) => t.worker))).toEqual([["w1"], ["w2"], []]);
    expect(run?.unknownEvents).toBe(0);

    const text = formatRun(run!);
    expect(text).toContain("\nworkers: w1, w2\n");
    const heads = text.split("\n").filter((l) => l.startsWith("step "));
    expect(heads[0]).toMatch(/ {2}worker w1$/);
    expect(heads[1]).toMatch(/ {2}workers w1 → w2$/);
    expect(heads[2]).toMatch(/ {2}worker w2$/);
    // In the step that changed hands, the call says who ran it.
    expect(text).toMatch(/→ multiply .* on w2\n/);
    expect(text).not.toMatch(/→ add .* on w1/);
  });

  it("leaves a run of one process without workers, in the view and in the report", async () => {
    const { file } = await tracedCalculatorRun(tempDir());
    const [run] = readTraceFile(file).runs;
    expect(run?.workers).toBeUndefined();
    for (const step of run?.steps ?? []) {
      expect(step.workers).toBeUndefined();
      for (const call of step.tools) expect(call.worker).toBeUndefined();
    }
    expect(formatRun(run!)).not.toContain("worker");
  });

  it("shortens a hostile worker name and ignores one that is not a string", async () => {
    const { file } = await tracedCalculatorRun(tempDir());
    const { readFileSync, writeFileSync } = await import("node:fs");
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const tagged = lines.map((raw, i) => {
      const record = JSON.parse(raw) as Record<string, unknown>;
      if (record.type === "trace_header") return raw;
      return JSON.stringify({ ...record, worker: i === 1 ? "x".repeat(5_000) : 42 });
    });
    writeFileSync(file, `${tagged.join("\n")}\n`);
    const [run] = readTraceFile(file).runs;
    expect(run?.workers).toHaveLength(1);
    expect(run?.workers?.[0]?.length).toBe(200);
    expect(run?.workers?.[0]?.endsWith("…")).toBe(true);
  });
});
