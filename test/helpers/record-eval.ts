/**
 * Makes the recorded eval `glassloop eval recordings/evals/calculator.eval.mjs --replay
 * recordings/evals/calculator` replays: `npx tsx test/helpers/record-eval.ts`.
 *
 * The eval runs as `glassloop eval --model openai:gpt-4o` would: the real loop, tools and scorers,
 * glassloop's OpenAI provider over HTTP, against a loopback server that answers each case with the
 * answers below (non-streaming). The first case's answers are gpt-4o's, the same ones the demo's
 * calculator recording holds; the other two were written by hand in the same shape (no model can
 * be called offline). No usage was recorded, so the eval holds zero tokens and $0.
 */
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SCENARIOS } from "../../src/cli/demo/scenarios.js";
import type { EvalDefinition } from "../../src/evals/define.js";
import { evaluate } from "../../src/evals/evaluate.js";
import type { EvalResult } from "../../src/evals/types.js";
import { presetModel } from "../../src/providers/presets.js";
import { chatJson } from "./openai-replies.js";
import { startWireServer } from "./wire-server.js";

type Answer = { toolCalls: { id: string; name: string; arguments: string }[] };
const call = (id: string, name: string, args: Record<string, unknown>): Answer => ({
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
});

/** Each case's answers, by its input, in the order the model gave them. */
export const EVAL_ANSWERS: Record<string, Answer[]> = {
  "Add 200 and 10, then multiply the result by 2.": SCENARIOS.find((s) => s.name === "calculator")
    ?.answers as Answer[],
  "Add 2 and 3.": [
    call("call_add_2_3", "add", { a: 2, b: 3 }),
    call("call_finish_5", "finish", { answer: "5" }),
  ],
  "Multiply 6 by 7, then add 8.": [
    call("call_mul_6_7", "multiply", { a: 6, b: 7 }),
    call("call_add_42_8", "add", { a: 42, b: 8 }),
    call("call_finish_50", "finish", { answer: "50" }),
  ],
};

/** Records the calculator eval into `dir` (default: recordings/evals/calculator). */
export async function recordEval(
  dir = fileURLToPath(new URL("../../recordings/evals/calculator", import.meta.url)),
): Promise<EvalResult> {
  const file = fileURLToPath(new URL("../../recordings/evals/calculator.eval.mjs", import.meta.url));
  const definition = (await import(file)).default as EvalDefinition;
  const server = await startWireServer();
  try {
    server.handler = (request, index) => {
      const messages = (request.body as { messages: { role: string; content?: string }[] }).messages;
      const user = messages.findIndex((m) => m.role === "user");
      const answers = EVAL_ANSWERS[messages[user]?.content ?? ""];
      // One answer per model call of the case: the calls so far are the assistant turns after the question.
      const answer = answers?.[messages.slice(user + 1).filter((m) => m.role === "assistant").length];
      if (!answer)
        return { status: 400, json: { error: { message: "no recorded answer for this request" } } };
      return chatJson({ ...answer, model: "gpt-4o" }, index);
    };
    const model = presetModel("openai", "gpt-4o", {
      baseURL: `${server.url}/v1`,
      apiKey: "not-a-real-key",
      env: {},
      parallelToolCalls: false,
    });
    rmSync(dir, { recursive: true, force: true });
    // One trial at a time, so the traces and their order are the same on every recording.
    const result = await evaluate({
      ...definition,
      id: "eval_calculator_recorded",
      model,
      outDir: dir,
      concurrency: 1,
    });
    if (server.unexpected !== 0 || result.summary.passed !== result.summary.scored)
      throw new Error(`the recording did not pass every case: ${JSON.stringify(result.summary)}`);
    return result;
  } finally {
    await server.close();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await recordEval();
  console.log(`recorded ${result.summary.scored} trials of ${result.name}`);
}
