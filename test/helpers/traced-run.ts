import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type RunResult } from "glassloop";
import { ScriptedModel, type ScriptStep } from "glassloop/testing";
import { TraceWriter } from "glassloop/trace";
import { calculatorTools } from "./calculator-tools.js";

export { calculatorTools };

/** A fresh temporary directory for one test's traces. */
export function tempDir(prefix = "glassloop-trace-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The script of the calculator run: add, multiply, answer. */
export const calculatorScript: ScriptStep[] = [
  { toolCalls: [{ name: "add", args: { a: 200, b: 10 } }], usage: { inputTokens: 120, outputTokens: 18 } },
  {
    toolCalls: [{ name: "multiply", args: { a: 210, b: 2 } }],
    usage: { inputTokens: 160, outputTokens: 18 },
  },
  { text: "420", usage: { inputTokens: 200, outputTokens: 2 } },
];

/** Runs the calculator agent with a trace writer; returns the result and the trace file. */
export async function tracedCalculatorRun(
  dir: string,
  script: ScriptStep[] = calculatorScript,
): Promise<{ result: RunResult<string>; file: string }> {
  const writer = new TraceWriter({ dir });
  const agent = new Agent({
    instructions: "Perform arithmetic with the tools.",
    model: new ScriptedModel(script, { price: { inputPerMTok: 0.15, outputPerMTok: 0.6 } }),
    tools: calculatorTools(),
    limits: { maxSteps: 10, maxTokens: 5_000 },
  });
  const result = await agent.run("Add 200 and 10, then multiply the result by 2.", {
    onEvent: writer.onEvent,
  });
  return { result, file: writer.pathOf(result.runId) };
}
