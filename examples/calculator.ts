/**
 * A calculator agent in four parts: the goal is the instructions, the actions are `add` and `multiply`,
 * the memory is the transcript, the environment runs the tools. Run it:
 *
 *   npm run example                                  # offline, against a scripted model
 *   npx tsx examples/calculator.ts --model openai:gpt-4o-mini
 */
import { Agent, type Model, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { z } from "zod";
import { chooseModel, isMain, type Print, runExample } from "./cli.js";

const numbers = z.object({
  a: z.number().describe("The first number"),
  b: z.number().describe("The second number"),
});

/** Adds two numbers. */
export const add = tool({
  name: "add",
  description: "Adds two numbers.",
  input: numbers,
  run: ({ a, b }) => a + b,
});

/** Multiplies two numbers. */
export const multiply = tool({
  name: "multiply",
  description: "Multiplies two numbers.",
  input: numbers,
  run: ({ a, b }) => a * b,
});

/** The task. */
export const QUESTION = "Add 200 and 10, then multiply the result by 2.";

/** The calculator agent, for any model. */
export function calculatorAgent(model: Model | string): Agent {
  return new Agent({
    name: "calculator",
    instructions:
      "Perform arithmetic using the add and multiply tools, one step at a time. " +
      "When you have the final result, answer with the number alone.",
    model,
    tools: [add, multiply],
    limits: { maxSteps: 6, maxToolCalls: 6 },
  });
}

/** What a tool-calling model answers to QUESTION, step by step (a recorded transcript). */
export function scriptedCalculatorModel(): ScriptedModel {
  return new ScriptedModel(
    [
      { toolCalls: [{ name: "add", args: { a: 200, b: 10 } }] },
      { toolCalls: [{ name: "multiply", args: { a: 210, b: 2 } }] },
      { text: "420" },
    ],
    { id: "scripted:calculator" },
  );
}

/** Runs the example; `--model provider:model` uses a real model. Returns the exit code. */
export function main(argv: readonly string[] = process.argv.slice(2), print?: Print): Promise<number> {
  return runExample(() => calculatorAgent(chooseModel(argv, scriptedCalculatorModel)), QUESTION, print);
}

if (isMain(import.meta.url)) process.exitCode = await main();
