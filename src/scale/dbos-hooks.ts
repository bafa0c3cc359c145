import type { ToolOutcome } from "../core/vocabulary/outcome.js";
import { interruptedContent } from "../features/durability/resume.js";
import type { RunHooks } from "../loop/hooks.js";
import type { RunSteps } from "./run-steps.js";

/** A tool call's outcome as DBOS records it, or the mark of a call a crash cut off. */
type RecordedCall = { kind: "done"; outcome: ToolOutcome } | { kind: "interrupted" };

/**
 * The DBOS durability of a run's tool calls, as hooks around each call: every call a DBOS step
 * named `tool:<name>` whose output is the call's whole outcome (a timeout replays as a timeout).
 * A tool that is not idempotent gets a start-marker step (`start:<name>`) first: a replay that
 * finds the marker but no outcome knows the call was cut off by a crash and answers it as the
 * SQLite store's resume does (status `interrupted`, never run twice); an idempotent tool simply
 * runs again. Both steps take their ids when the hook is entered, which the turn does for its
 * calls in the model's order, so parallel calls keep their ids on every execution.
 */
export function dbosToolHooks(steps: RunSteps): RunHooks {
  return {
    // A guardrail's check is a step: a replay gets its verdict, usage and events as recorded.
    sideStep: (_state, name, next) => steps.step(name, next),
    toolCall(_state, _step, ready, next) {
      const name = ready.tool.name;
      const run = async (): Promise<RecordedCall> => ({ kind: "done", outcome: await next() });
      if (ready.tool.idempotent) return steps.step(`tool:${name}`, run).then((r) => outcomeOf(r, name));
      let started = false;
      const marker = steps.step(`start:${name}`, async () => {
        started = true;
        return ready.call.id;
      });
      const call = steps.step(`tool:${name}`, async (): Promise<RecordedCall> => {
        await marker;
        // The marker came from the record and this step did not: the call was running when the
        // worker died, and its effect is unknown.
        if (!started) return { kind: "interrupted" };
        return run();
      });
      return call.then((r) => outcomeOf(r, name));
    },
  };
}

function outcomeOf(recorded: RecordedCall, toolName: string): ToolOutcome {
  if (recorded.kind === "done") return recorded.outcome;
  return { status: "interrupted", content: interruptedContent(toolName) };
}
