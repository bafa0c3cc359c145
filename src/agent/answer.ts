import type { FinishReason } from "../models/model.js";
import type { AssistantMessage, ToolCall } from "../vocabulary/messages.js";
import type { StepResult } from "./hooks.js";
import type { LoopSettings } from "./loop.js";
import { announceCall, type RunState, recordResult } from "./run-state.js";

/** Feedback for an answer the provider did not let the model finish. */
const CUT_OFF: Partial<Record<FinishReason, { feedback: string; detail: string; call: string }>> = {
  length: {
    feedback: "Your answer was cut off at the output token limit. Answer again, more briefly.",
    detail: "its answer was cut off at the output token limit",
    call: "your response was cut off at the output token limit, so it may be incomplete. Send it again, more briefly.",
  },
  content_filter: {
    feedback: "Your answer was stopped by the provider's content filter. Answer again differently.",
    detail: "its answer was stopped by the content filter",
    call: "your response was stopped by the provider's content filter. Answer again differently.",
  },
};

/**
 * The one place that decides what a model's answer comes to before any of its calls runs, for
 * the live loop and for a resumed run's stored answer alike: a text answer ends the run or gets
 * feedback, and an answer the provider cut off (token limit, content filter) never ends it, as
 * text or through a terminal call. Returns undefined when the turn's calls should run.
 *
 * `calls` are the calls still without a result (all of the answer's, except on resume).
 */
export function decideAnswer(
  state: RunState<unknown>,
  settings: Pick<LoopSettings, "endTools" | "textNotAllowed">,
  step: number,
  answer: AssistantMessage,
  finishReason: FinishReason | undefined,
  calls: readonly ToolCall[] = answer.toolCalls ?? [],
): StepResult | undefined {
  const cut = finishReason === undefined ? undefined : CUT_OFF[finishReason];
  if (!answer.toolCalls?.length) {
    if (cut) {
      state.messages.push({ role: "user", content: cut.feedback });
      return { kind: "next", unusable: cut.detail };
    }
    if (settings.endTools.length === 0)
      return { kind: "done", outcome: { output: answer.content, finishedBy: "text" } };
    state.messages.push({ role: "user", content: settings.textNotAllowed });
    return { kind: "next", unusable: "it answered with text where a tool call must end the run" };
  }
  if (!cut) return undefined;
  const registry = state.environment.registry;
  if (!calls.some((c) => registry.get(c.name)?.terminal === true)) return undefined;
  // A cut-off answer that would end the run: none of its calls runs (the ending may be
  // truncated, and the turn's other calls belong to it), and each says why.
  for (const call of calls) {
    announceCall(state, step, call);
    state.messages.push(
      recordResult(state, step, call, { status: "not_executed", content: `Not executed: ${cut.call}` }),
    );
  }
  return { kind: "next", unusable: cut.detail };
}
