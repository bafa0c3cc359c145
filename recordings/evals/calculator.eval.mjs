// An eval you can run with no key: `glassloop eval <this file> --replay <its recording>` answers
// every model call from recordings/evals/calculator/ (see recordings/README.md), offline. With
// `--model provider:model` it runs live against that model instead.
import { Agent, ToolRegistry, tool } from "glassloop";
import { dataset, defineEval, exact, maxSteps, noToolErrors, toolsCalled } from "glassloop/evals";
import { z } from "zod";

const numbers = z.object({ a: z.number(), b: z.number() });

/** The demo's calculator agent: add, multiply, and a `finish` tool whose answer ends the run. */
function calculator(model) {
  const add = tool({
    name: "add",
    description: "Adds two numbers.",
    input: numbers,
    run: ({ a, b }) => a + b,
  });
  const multiply = tool({
    name: "multiply",
    description: "Multiplies two numbers.",
    input: numbers,
    run: ({ a, b }) => a * b,
  });
  const finish = tool({
    name: "finish",
    description: "Provide the final answer to the user and end the task.",
    input: z.object({ answer: z.string() }),
    run: ({ answer }) => answer,
  });
  return new Agent({
    name: "calculator",
    instructions:
      "Perform arithmetic using the add and multiply tools. When you have the final answer, call finish with it.",
    model,
    tools: new ToolRegistry().register(add).register(multiply).register(finish, { terminal: true }),
    modelSettings: { toolChoice: "required", maxOutputTokens: 1024 },
  });
}

export default defineEval({
  name: "calculator",
  agent: ({ model }) => calculator(model ?? "openai:gpt-4o-mini"),
  dataset: dataset("calculator", [
    { id: "add-then-double", input: "Add 200 and 10, then multiply the result by 2.", expected: "420" },
    { id: "add", input: "Add 2 and 3.", expected: "5" },
    { id: "multiply-then-add", input: "Multiply 6 by 7, then add 8.", expected: "50" },
  ]),
  scorers: [exact(), toolsCalled(["finish"]), noToolErrors(), maxSteps(4)],
});
