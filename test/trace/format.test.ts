import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, type AgentEvent } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import {
  buildRunView,
  findRun,
  formatRun,
  formatRunList,
  listRuns,
  readTraceFile,
  TraceFormatError,
  TraceNotFoundError,
  traceFiles,
} from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

describe("trace show and list", () => {
  it("labels a nested run with its agent's name", async () => {
    const researcher = new Agent({ name: "researcher", model: new ScriptedModel([{ text: "facts" }]) });
    const writer = new Agent({
      name: "writer",
      model: new ScriptedModel([{ toolCalls: [{ name: "research", args: { input: "q" } }] }, { text: "ok" }]),
      tools: [researcher.asTool({ name: "research", description: "Finds facts." })],
    });
    const events: AgentEvent[] = [];
    await writer.run("go", { onEvent: (e) => events.push(e) });
    const view = buildRunView(events);
    expect(view.agent).toBe("writer");
    const sub = view.steps[0]?.tools[0]?.subRuns[0];
    expect(sub?.agent).toBe("researcher");
    expect(formatRun(view)).toContain(`sub-run researcher ${sub?.runId} scripted:test ok`);
  });

  it("shows a run step by step: timings, tokens, prompt changes, tool calls, output, budget", async () => {
    const dir = tempDir();
    const { result, file } = await tracedCalculatorRun(dir);
    const { run } = findRun(result.runId, dir);
    const text = formatRun(run, { file });
    const lines = text.split("\n");
    expect(lines[0]).toMatch(
      new RegExp(
        `^${result.runId}  scripted:test  OK  3 steps  518 tokens \\(480 in / 38 out\\)  \\$0\\.0000\\d\\d  [\\d.]+ ms$`,
      ),
    );
    expect(text).toContain("input: Add 200 and 10, then multiply the result by 2.");
    expect(text).toMatch(/budget: steps 3\/10 \(30%\) · tokens 518\/5,000 \(10%\)/);
    expect(text).toContain("  prompt: first request (1 message, 2 tools)");
    expect(text).toContain('  → add {"a":200,"b":10}  ok');
    expect(text).toContain("    + messages[1] (assistant: 1 tool call(s))");
    expect(text).toContain("    + messages[2] (tool: 210)");
    expect(text).toMatch(/step 3 .* 200 in \/ 2 out {2}finish stop/);
    expect(text).toContain("  says: 420");
    expect(text).toContain("output: 420");
  });

  it("lists runs newest first with status, model, steps, tokens, cost and duration", async () => {
    const dir = tempDir();
    const a = await tracedCalculatorRun(dir);
    await new Promise((r) => setTimeout(r, 5));
    const b = await tracedCalculatorRun(dir);
    const { runs, skipped } = listRuns(traceFiles(dir));
    expect(skipped).toEqual([]);
    expect(runs.map((r) => r.runId)).toEqual([b.result.runId, a.result.runId]);
    const table = formatRunList(runs).split("\n");
    expect(table[0]).toMatch(/^RUN\s+STARTED\s+STATUS\s+MODEL\s+STEPS\s+TOKENS\s+COST\s+DURATION$/);
    expect(table[1]).toMatch(
      new RegExp(
        `^${b.result.runId}\\s+\\d{4}-\\d\\d-\\d\\d [\\d:]{8}\\s+ok\\s+scripted:test\\s+3\\s+518\\s+\\$0\\.0000\\d\\d\\s+[\\d.]+ ms$`,
      ),
    );
    expect(formatRunList([])).toContain("No traces yet");
  });

  it("shows what it can of a torn or partly corrupt trace and says which lines were bad", async () => {
    const dir = tempDir();
    const { file } = await tracedCalculatorRun(dir);
    const text = (await import("node:fs")).readFileSync(file, "utf8").split("\n");
    const broken = join(dir, "broken.jsonl");
    // Line 5 garbage, and the run cut off mid-line after step 2's model response.
    writeFileSync(
      broken,
      [...text.slice(0, 4), "{oops", ...text.slice(4, 11), text[11]?.slice(0, 30)].join("\n"),
    );
    const run = readTraceFile(broken).runs[0];
    expect(run?.status).toBe("incomplete");
    expect(run?.problems.map((p) => p.line)).toEqual([5, 13]);
    expect(run?.problems[1]?.message).toContain("cut off while writing");
    const shown = formatRun(run!);
    expect(shown).toContain("! trace line 5: not JSON");
    expect(shown).toContain("(no run_end: the run crashed or is still going)");
    expect(shown).toContain('→ add {"a":200,"b":10}');
  });

  it("gives clear errors for a missing trace, an ambiguous prefix and a file that is no trace", async () => {
    const dir = tempDir();
    expect(() => findRun("run_nope", dir)).toThrow(TraceNotFoundError);
    writeFileSync(join(dir, "notes.jsonl"), "hello\n");
    expect(() => readTraceFile(join(dir, "notes.jsonl"))).toThrow(TraceFormatError);
    expect(() => readTraceFile(join(dir, "notes.jsonl"))).toThrow(/line 1: not JSON/);
    await tracedCalculatorRun(dir);
    await tracedCalculatorRun(dir);
    expect(() => findRun("run_", dir)).toThrow(/matches several runs/);
    const { skipped } = listRuns(traceFiles(dir));
    expect(skipped).toHaveLength(1);
  });
});
