import { Agent } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { dataset } from "./dataset.js";
import { defineEval } from "./define.js";
import { scorer } from "./scorers/custom.js";
import { fields } from "./scorers/fields.js";

const answer = z.object({ answer: z.number() });
const agent = () => new Agent({ model: new ScriptedModel([]), output: answer });
const sums = dataset("sums", [{ input: "2 + 2?", expected: 4 }]);

describe("eval types follow the agent's output and the dataset's expected values", () => {
  it("a scorer typed for the output and expected values fits; its function sees those types", () => {
    const exactSum = scorer<{ answer: number }, number>("exact sum", ({ output, expected }) => {
      expectTypeOf(output).toEqualTypeOf<{ answer: number } | undefined>();
      expectTypeOf(expected).toEqualTypeOf<number | undefined>();
      return output?.answer === expected;
    });
    expectTypeOf(sums.cases[0]?.expected).toEqualTypeOf<number | undefined>();
    defineEval({ agent, dataset: sums, scorers: [exactSum, fields(answer)] });
  });

  it("refuses a scorer for another output type, or a dataset whose expected values do not fit", () => {
    const onText = scorer<{ answer: string }, number>("text", ({ output }) => output?.answer === "4");
    // @ts-expect-error: the agent returns { answer: number }, the scorer wants { answer: string }
    defineEval({ agent, dataset: sums, scorers: [onText] });
    const onNumbers = scorer<{ answer: number }, number>("n", ({ expected }) => (expected ?? 0) > 1);
    defineEval({
      agent,
      dataset: dataset("words", [{ input: "two?", expected: "two" }]),
      // @ts-expect-error: the scorer expects numbers, the cases give strings
      scorers: [onNumbers],
    });
  });
});
