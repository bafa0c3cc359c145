import { z } from "zod";
import { ConfigError, RunError } from "../errors.js";
import type { Message } from "../memory/messages.js";
import type { Model } from "../models/model.js";
import type { AgentEvent } from "./events.js";
import { errorState, type RunState } from "./run-state.js";
import type { RunUsage } from "./usage.js";

/** An evaluator's judgement of a candidate final answer. */
export type Verdict = { accept: true } | { accept: false; feedback: string };

/** What an evaluator sees. */
export interface Candidate {
  input: string;
  output: unknown;
  messages: readonly Message[];
}

/** What an evaluator may use: the run's signal, and ways to account for its own model calls. */
export interface EvaluatorTools {
  signal: AbortSignal;
  addUsage(usage: RunUsage): void;
  forward(event: AgentEvent): void;
}

/** Judges a candidate answer: a plain function, or `modelEvaluator(...)` for a model call. */
export type Evaluator = (candidate: Candidate, tools: EvaluatorTools) => Verdict | Promise<Verdict>;

/** Reflection: an evaluator accepts the candidate answer or sends the agent back with feedback. */
export interface ReflectOptions {
  evaluator: Evaluator;
  /** Rejections allowed before the run fails (default 2). */
  maxRounds?: number;
}

/** Throws a ConfigError for a `maxRounds` that is not a whole number >= 0 (`Infinity`: no limit). */
export function checkReflect(reflect: ReflectOptions): void {
  const { maxRounds } = reflect;
  if (maxRounds === undefined) return;
  if (!(maxRounds >= 0 && (Number.isInteger(maxRounds) || maxRounds === Number.POSITIVE_INFINITY)))
    throw new ConfigError(
      `reflect.maxRounds must be a whole number >= 0 (or Infinity for no limit), got ${String(maxRounds)}`,
    );
}

/** The message that sends the agent back after a rejection. */
export function rejectionFeedback(feedback: string): string {
  return `A reviewer rejected your answer: ${feedback}\nRevise your work and answer again.`;
}

const verdictSchema = z.object({
  accept: z.boolean().describe("true when the answer fully and correctly does the task"),
  feedback: z.string().describe("When rejecting: what is wrong and what to change. Empty when accepting."),
});

/**
 * An evaluator backed by a model call with its own instructions; its request and usage are part
 * of the run (nested events, rolled-up usage) like any other model call.
 */
export function modelEvaluator(model: Model, instructions?: string): Evaluator {
  return async (candidate, tools) => {
    // Imported lazily: the Agent imports this room, and this room needs an Agent only here.
    const { Agent } = await import("./agent.js");
    const judge = new Agent({
      name: "evaluator",
      model,
      instructions:
        instructions ??
        "You review an assistant's answer to a task. Accept it only if it fully and correctly does the task; otherwise say precisely what to fix.",
      output: verdictSchema,
    });
    const task = `Task:\n${candidate.input}\n\nCandidate answer:\n${
      typeof candidate.output === "string" ? candidate.output : JSON.stringify(candidate.output)
    }`;
    const result = await judge.run(task, { signal: tools.signal, onEvent: tools.forward });
    tools.addUsage(result.usage);
    return result.output.accept ? { accept: true } : { accept: false, feedback: result.output.feedback };
  };
}

/** Asks the evaluator about a candidate answer; past `maxRounds` rejections the run fails. */
export async function judge(
  state: RunState<unknown>,
  reflect: ReflectOptions,
  input: string,
  output: unknown,
  round: number,
): Promise<Verdict> {
  const verdict = await reflect.evaluator(
    { input, output, messages: state.messages },
    {
      signal: state.signal,
      addUsage: (usage) => state.meter.addSubRun(usage),
      forward: (event) =>
        state.emit({ type: "nested", step: 0, toolCallId: "", toolName: "evaluator", event }),
    },
  );
  state.emit({
    type: "reflection",
    round,
    accept: verdict.accept,
    ...(!verdict.accept && { feedback: verdict.feedback }),
  });
  const maxRounds = reflect.maxRounds ?? 2;
  if (!verdict.accept && round > maxRounds) {
    throw new RunError(
      "rejected",
      `The evaluator rejected the answer ${round} times (maxRounds ${maxRounds}); last feedback: ${verdict.feedback}`,
      errorState(state),
    );
  }
  return verdict;
}
