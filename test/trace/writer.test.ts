import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Agent } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { readTraceFile, TRACE_FORMAT, TraceWriter } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { calculatorScript, calculatorTools, tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

describe("TraceWriter", () => {
  it("writes a header, then every event of the run in order, one JSON object per line", async () => {
    const dir = tempDir();
    const { result, file } = await tracedCalculatorRun(dir);
    expect(file).toBe(join(dir, `${result.runId}.jsonl`));
    const records = lines(file);
    expect(records[0]).toMatchObject({
      type: "trace_header",
      format: TRACE_FORMAT,
      version: 1,
      runId: result.runId,
    });
    expect(records.slice(1).map((r) => r.type)).toEqual([
      "run_start",
      "step_start",
      "model_request",
      "model_response",
      "tool_call",
      "tool_result",
      "step_end",
      "step_start",
      "model_request",
      "model_response",
      "tool_call",
      "tool_result",
      "step_end",
      "step_start",
      "model_request",
      "model_response",
      "step_end",
      "run_end",
    ]);
    for (const r of records) expect(r.runId).toBe(result.runId);
  });

  it("keeps the exact request body, tool arguments and results, timings, usage and limits", async () => {
    const dir = tempDir();
    const events: unknown[] = [];
    const writer = new TraceWriter({ dir });
    const agent = new Agent({
      instructions: "Perform arithmetic with the tools.",
      model: new ScriptedModel(calculatorScript, { price: { inputPerMTok: 1, outputPerMTok: 2 } }),
      tools: calculatorTools(),
      limits: { maxTokens: 9_999 },
    });
    const result = await agent.run("go", {
      onEvent: (e) => {
        events.push(e);
        writer.onEvent(e);
      },
    });
    const written = lines(writer.pathOf(result.runId)).slice(1);
    // Byte for byte what the listener saw (nothing here is secret, so redaction changes nothing).
    expect(written).toEqual(JSON.parse(JSON.stringify(events)));
    const start = written[0] as { limits: unknown };
    expect(start.limits).toEqual({ maxTokens: 9_999 });
    const stepEnds = written.filter((e) => e.type === "step_end") as {
      usage: { inputTokens: number; costUsd: number };
    }[];
    expect(stepEnds.map((e) => e.usage.inputTokens)).toEqual([120, 280, 480]);
    expect(stepEnds.at(-1)?.usage.costUsd).toBeCloseTo((480 * 1 + 38 * 2) / 1e6, 12);
    const results = written.filter((e) => e.type === "tool_result");
    expect(results.map((r) => r.content)).toEqual(["210", "420"]);
    expect(results.every((r) => typeof r.durationMs === "number")).toBe(true);
  });

  it("appends several runs to one file when given a file, and the reader splits them", async () => {
    const dir = tempDir();
    const file = join(dir, "all.jsonl");
    const writer = new TraceWriter({ file });
    const agent = new Agent({ model: new ScriptedModel([{ text: "a" }, { text: "b" }]) });
    const first = await agent.run("one", { onEvent: writer.onEvent });
    const second = await agent.run("two", { onEvent: writer.onEvent });
    expect(writer.files).toEqual([file]);
    const trace = readTraceFile(file);
    expect(trace.runs.map((r) => [r.runId, r.input, r.output])).toEqual([
      [first.runId, "one", "a"],
      [second.runId, "two", "b"],
    ]);
  });

  it("leaves out text deltas when asked, and writes them by default", async () => {
    const dir = tempDir();
    const agent = new Agent({ model: new ScriptedModel([{ text: "one two three" }, { text: "x y" }]) });
    const all = new TraceWriter({ dir });
    const quiet = new TraceWriter({ dir: join(dir, "quiet"), textDeltas: false });
    const run1 = agent.stream("hi", { onEvent: all.onEvent });
    for await (const _ of run1);
    const id1 = (await run1.result).runId;
    const run2 = agent.stream("hi", { onEvent: quiet.onEvent });
    for await (const _ of run2);
    const id2 = (await run2.result).runId;
    expect(lines(all.pathOf(id1)).filter((e) => e.type === "text_delta").length).toBe(3);
    expect(lines(quiet.pathOf(id2)).filter((e) => e.type === "text_delta").length).toBe(0);
  });

  it("reports an unwritable trace once and never breaks the run", async () => {
    const dir = tempDir();
    const blocker = join(dir, "not-a-dir");
    writeFileSync(blocker, "x");
    const failures: string[] = [];
    const writer = new TraceWriter({
      dir: join(blocker, "traces"),
      onError: (e, p) => failures.push(`${p}: ${e.message}`),
    });
    const agent = new Agent({ model: new ScriptedModel([{ text: "fine" }]) });
    const result = await agent.run("hi", { onEvent: writer.onEvent });
    expect(result.output).toBe("fine");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain(result.runId);
  });

  it("traces a failed run to its end: the error and run_end with status", async () => {
    const dir = tempDir();
    const writer = new TraceWriter({ dir });
    const agent = new Agent({ model: new ScriptedModel([{ error: "provider exploded" }]) });
    const error = await agent.run("hi", { onEvent: writer.onEvent }).catch((e: unknown) => e);
    const runId = (error as { runId: string }).runId;
    const view = readTraceFile(writer.pathOf(runId)).runs[0];
    expect(view?.status).toBe("failed");
    expect(view?.errors[0]?.message).toContain("provider exploded");
    expect(view?.steps[0]?.error?.code).toBe("model_error");
  });

  it("never lets a run id escape the trace directory", () => {
    const writer = new TraceWriter({ dir: "/tmp/traces" });
    for (const id of ["../../etc/passwd", "..", "a/b\\c"]) {
      expect(dirname(writer.pathOf(id))).toBe("/tmp/traces");
    }
  });
});
