import { QuestionAsked } from "../core/questions.js";
import type { ToolOutcome } from "../core/vocabulary/outcome.js";
import type { PersonQuestion } from "../core/vocabulary/questions.js";
import { interruptedContent } from "../features/durability/resume.js";
import type { RunHooks } from "../loop/hooks.js";
import type { RunSteps } from "./run-steps.js";
import type { MarkStart } from "./tool-starts.js";

/**
 * A tool call's outcome as DBOS records it, the mark of a call a crash cut off, or the question
 * the call asked the person (it stopped there; the run waits for the answer, then runs it again).
 */
type RecordedCall =
  | { kind: "done"; outcome: ToolOutcome }
  | { kind: "interrupted" }
  | { kind: "asked"; question: PersonQuestion };

/**
 * The DBOS durability of a run's tool calls, as hooks around each call: every call a DBOS step
 * named `tool:<name>` whose output is the call's whole outcome (a timeout replays as a timeout).
 * A tool that is not idempotent is marked as started (`markStart`, committed) inside its step,
 * before it runs: a replay whose step has no outcome but finds the mark knows the call was cut
 * off by a crash and answers it as the SQLite store's resume does (status `interrupted`, never
 * run twice); an idempotent tool simply runs again. A call that asks the person a question
 * (`QuestionAsked`) ends its step with the question recorded, not a failure: a replay gets the
 * question without running the tool (the person is asked once), and the run waits for the answer
 * (questions.ts). Steps take their ids when the hook is
 * entered, which the turn does for its calls in the model's order, so parallel calls keep their
 * ids on every execution.
 */
export function dbosToolHooks(steps: RunSteps, markStart: MarkStart): RunHooks {
  return {
    // A guardrail's check is a step: a replay gets its verdict, usage and events as recorded.
    sideStep: (_state, name, next) => steps.step(name, next),
    toolCall(_state, _step, ready, next) {
      const name = ready.tool.name;
      const run = async (): Promise<RecordedCall> => {
        try {
          return { kind: "done", outcome: await next() };
        } catch (error) {
          if (error instanceof QuestionAsked) return { kind: "asked", question: error.question };
          throw error;
        }
      };
      if (ready.tool.idempotent) return steps.step(`tool:${name}`, run).then((r) => outcomeOf(r, name));
      const call = steps.step(
        `tool:${name}`,
        async (op): Promise<RecordedCall> =>
          // Marked before: the call was running when the worker died, and its effect is unknown.
          (await markStart(op)) ? run() : { kind: "interrupted" },
      );
      return call.then((r) => outcomeOf(r, name));
    },
  };
}

function outcomeOf(recorded: RecordedCall, toolName: string): ToolOutcome {
  if (recorded.kind === "done") return recorded.outcome;
  // The turn catches it: the run waits for the answer once the turn's other calls settled.
  if (recorded.kind === "asked") throw new QuestionAsked(recorded.question);
  return { status: "interrupted", content: interruptedContent(toolName) };
}
