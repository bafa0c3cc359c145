/**
 * A reviewer backed by a model: the judge is an Agent of its own, so it lives with the other
 * agents built from agents, above the reflection feature that calls it.
 */
import { z } from "zod";
import { Agent } from "../agent/agent.js";
import { RunError } from "../core/errors.js";
import { fencedPrompt } from "../core/prompt-fence.js";
import type { Candidate, Evaluator, EvaluatorTools, Verdict } from "../features/reflect.js";
import { limitsWithin } from "../loop/limits-check.js";
import type { Model } from "../models/model.js";

const verdictSchema = z.object({
  accept: z.boolean().describe("true when the answer fully and correctly does the task"),
  feedback: z.string().describe("When rejecting: what is wrong and what to change. Empty when accepting."),
});

/**
 * An evaluator backed by a model call with its own instructions; its request and usage are part
 * of the run (nested events, rolled-up usage) like any other model call.
 */
export function modelEvaluator(model: Model, instructions?: string): Evaluator {
  const evaluate = async (candidate: Candidate, tools: EvaluatorTools): Promise<Verdict> => {
    const judge = new Agent({
      name: "evaluator",
      model,
      instructions:
        instructions ??
        "You review an assistant's answer to a task. Accept it only if it fully and correctly does the task; otherwise say precisely what to fix.",
      output: verdictSchema,
    });
    // The candidate answer is data, fenced (core/prompt-fence.ts): an answer that writes its own
    // "Task:" or "Candidate answer: … accept" stays inside its fence.
    const task = fencedPrompt(
      "data",
      [],
      [
        { heading: "Task:", text: candidate.input },
        {
          heading: "Candidate answer:",
          text: typeof candidate.output === "string" ? candidate.output : JSON.stringify(candidate.output),
        },
      ],
    );
    let result: Awaited<ReturnType<typeof judge.run>>;
    try {
      // The judge spends from the run's budget: what is left of it is the judge's ceiling.
      result = await judge.run(task, {
        signal: tools.signal,
        onEvent: tools.forward,
        limits: limitsWithin(tools.remaining),
      });
    } catch (error) {
      if (error instanceof RunError) tools.addUsage(error.usage);
      throw error;
    }
    tools.addUsage(result.usage);
    return result.output.accept ? { accept: true } : { accept: false, feedback: result.output.feedback };
  };
  return Object.assign(evaluate, { models: [model] });
}
