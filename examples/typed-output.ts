/**
 * Typed output: `output: zodSchema` gives the agent a built-in `final_result` tool whose
 * arguments are the schema, and `result.output` is typed from it (here `{ answer: number; steps:
 * string[] }`). A plain-text answer does not end such a run: the model is told to call
 * `final_result`, as the scripted model below experiences.
 *
 *   npx tsx examples/typed-output.ts
 *   npx tsx examples/typed-output.ts --model openai:gpt-4o-mini
 */
import { Agent, type Model } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { z } from "zod";
import { add, multiply, QUESTION } from "./calculator.js";
import { chooseModel, isMain, type Print, runExample } from "./cli.js";

/** The result the run must return. */
export const Calculation = z.object({
  answer: z.number().describe("The final numeric result"),
  steps: z.array(z.string()).describe("Each operation performed, in order, e.g. '200 + 10 = 210'"),
});

/** A calculation, as the run returns it. */
export type Calculation = z.infer<typeof Calculation>;

/** The calculator with a typed result. */
export function typedCalculatorAgent(model: Model | string): Agent<undefined, Calculation> {
  return new Agent({
    name: "typed-calculator",
    instructions:
      "Perform arithmetic using the add and multiply tools, then report the result with final_result.",
    model,
    tools: [add, multiply],
    output: Calculation,
    limits: { maxSteps: 8, maxToolCalls: 8 },
  });
}

/** What a tool-calling model answers: the tools, a premature text answer, then final_result. */
export function scriptedTypedModel(): ScriptedModel {
  return new ScriptedModel(
    [
      { toolCalls: [{ name: "add", args: { a: 200, b: 10 } }] },
      { toolCalls: [{ name: "multiply", args: { a: 210, b: 2 } }] },
      { text: "The result is 420." },
      {
        toolCalls: [
          { name: "final_result", args: { answer: 420, steps: ["200 + 10 = 210", "210 × 2 = 420"] } },
        ],
      },
    ],
    { id: "scripted:typed-output" },
  );
}

/** Runs the example; the answer is printed from the typed fields. Returns the exit code. */
export function main(argv: readonly string[] = process.argv.slice(2), print?: Print): Promise<number> {
  return runExample(
    () => typedCalculatorAgent(chooseModel(argv, scriptedTypedModel)),
    QUESTION,
    print,
    // `output` is a Calculation here, not `unknown`: the fields are checked by the compiler.
    (output) => `${output.answer} (${output.steps.join("; ")})`,
  );
}

if (isMain(import.meta.url)) process.exitCode = await main();
