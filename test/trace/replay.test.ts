import { readFileSync } from "node:fs";
import { Agent, type Model } from "glassloop";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { readTraceFile, replayTrace, TraceWriter } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { calculatorTools, tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

const calculator =
  (multiplyBy = 1) =>
  (model: Model) =>
    new Agent({
      instructions: "Perform arithmetic with the tools.",
      model,
      tools: calculatorTools(multiplyBy),
      limits: { maxSteps: 10, maxTokens: 5_000 },
    });

describe("trace replay", () => {
  it("reproduces a recorded run exactly: same requests, tool results, usage and output", async () => {
    const dir = tempDir();
    const { result, file } = await tracedCalculatorRun(dir);
    const report = await replayTrace({ trace: file, agent: calculator() });
    expect(report.status).toBe("reproduced");
    expect(report.divergence).toBeUndefined();
    expect(report.output).toBe(result.output);
    const recorded = readTraceFile(file).runs[0]!;
    const replayedResults = report.events
      .filter((e) => e.type === "tool_result")
      .map((e) => [e.step, e.toolName, e.content]);
    expect(replayedResults).toEqual(
      recorded.steps.flatMap((s) => s.tools.map((t) => [s.step, t.toolName, t.content])),
    );
    const tokens = report.events.filter((e) => e.type === "model_response").map((e) => e.usage);
    expect(tokens).toEqual(recorded.steps.map((s) => s.response?.usage));
  });

  it("reports the step where a changed tool made the run diverge", async () => {
    const dir = tempDir();
    const { file } = await tracedCalculatorRun(dir);
    // multiply now doubles its result: step 2's tool result differs, and so does step 3's request.
    const report = await replayTrace({ trace: file, agent: calculator(2) });
    expect(report.status).toBe("diverged");
    expect(report.divergence).toMatchObject({
      step: 2,
      kind: "tool_result",
      where: "multiply",
      recorded: { status: "ok", content: "420" },
      actual: { status: "ok", content: "840" },
    });
    expect(report.divergence?.message).toContain('returned "840"');
    expect(report.error?.code).toBe("replay_divergence");
  });

  it("reports a changed prompt as a request divergence with its JSON path", async () => {
    const dir = tempDir();
    const { file } = await tracedCalculatorRun(dir);
    const report = await replayTrace({
      trace: file,
      agent: (model) => new Agent({ instructions: "Do arithmetic.", model, tools: calculatorTools() }),
    });
    expect(report.status).toBe("diverged");
    expect(report.divergence).toMatchObject({ step: 1, kind: "request", where: "instructions" });
    expect(report.divergence?.message).toContain("Do arithmetic.");
  });

  it("reproduces a failed run's failure, and flags a run that now ends differently", async () => {
    const dir = tempDir();
    const writer = new TraceWriter({ dir });
    const make = (maxSteps: number) => (model: Model) =>
      new Agent({ model, tools: calculatorTools(), limits: { maxSteps } });
    const recorded = make(1)(new ScriptedModel([{ toolCalls: [{ name: "add", args: { a: 1, b: 2 } }] }]));
    const error = await recorded.run("add", { onEvent: writer.onEvent }).catch((e: unknown) => e);
    const file = writer.pathOf((error as { runId: string }).runId);
    expect((await replayTrace({ trace: file, agent: make(1) })).status).toBe("reproduced");
    // With a bigger budget the agent asks for a second call the recording never made.
    const report = await replayTrace({ trace: file, agent: make(5) });
    expect(report.divergence).toMatchObject({ step: 2, kind: "steps" });
  });

  it("forks: replays the steps before --from-step, then a live model answers", async () => {
    const dir = tempDir();
    const { file } = await tracedCalculatorRun(dir);
    const live = new FunctionModel(() => ({ text: "four hundred twenty" }), { id: "live:test" });
    const seen: string[] = [];
    const report = await replayTrace({
      trace: file,
      agent: calculator(),
      fromStep: 3,
      model: live,
      onEvent: (e) => seen.push(e.type),
    });
    expect(report.status).toBe("forked");
    expect(report.output).toBe("four hundred twenty");
    expect(live.requests).toHaveLength(1);
    // The live model got the recorded history: both tool results are in its prompt.
    expect(JSON.stringify(live.requests[0]?.messages)).toContain('"content":"420"');
    expect(seen.filter((t) => t === "model_request")).toHaveLength(3);
  });

  it("rejects half a fork and a fork point without a recorded prefix", async () => {
    const dir = tempDir();
    const { file } = await tracedCalculatorRun(dir);
    await expect(replayTrace({ trace: file, agent: calculator(), fromStep: 2 })).rejects.toThrow(
      /both a step/,
    );
    await expect(
      replayTrace({ trace: file, agent: calculator(), fromStep: 0, model: "x:y" }),
    ).rejects.toThrow(/whole number/);
  });

  it("replays one run of a file that holds several (file#runId)", async () => {
    const dir = tempDir();
    const file = `${dir}/all.jsonl`;
    const writer = new TraceWriter({ file });
    const agent = (model: Model) => new Agent({ model });
    const a = await agent(new ScriptedModel([{ text: "first" }])).run("one", { onEvent: writer.onEvent });
    await agent(new ScriptedModel([{ text: "second" }])).run("two", { onEvent: writer.onEvent });
    expect(readFileSync(file, "utf8")).toContain("second");
    const report = await replayTrace({ trace: `${file}#${a.runId}`, agent });
    expect(report).toMatchObject({ status: "reproduced", output: "first" });
  });
});
