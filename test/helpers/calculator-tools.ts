import { tool } from "glassloop";
import { z } from "zod";

const numbers = z.object({ a: z.number(), b: z.number() });

/** The calculator's `add` tool, as the tests use it. */
export const add = tool({
  name: "add",
  description: "Adds two numbers.",
  input: numbers,
  run: ({ a, b }) => a + b,
});

/** The calculator's `multiply`, optionally with a planted bug (`factor` ≠ 1) for replay tests to find. */
export const multiplyBy = (factor: number) =>
  tool({
    name: "multiply",
    description: "Multiplies two numbers.",
    input: numbers,
    run: ({ a, b }) => a * b * factor,
  });

/** The calculator's `multiply` tool. */
export const multiply = multiplyBy(1);

/** The calculator's tools. */
export const calculatorTools = (factor = 1) => [add, factor === 1 ? multiply : multiplyBy(factor)];
