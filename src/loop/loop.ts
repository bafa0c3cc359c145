import { GlassloopError, ModelBehaviorError, RunError, runStatusOf } from "../core/errors.js";
import { LIMIT_DEFAULTS } from "../core/vocabulary/limits.js";
import type { AssistantMessage, FinishReason, ToolCall, ToolMessage } from "../core/vocabulary/messages.js";
import type { ModelResponse, ToolChoice, ToolSpec } from "../models/model.js";
import type { FinalAnswer, PendingTurn, RunState, StepRequest, StepResult } from "./hooks.js";
import { type CallSettings, callModel, stepRequest, toAssistantMessage } from "./model-call.js";
import { abortError, budgetError, errorState, silent } from "./run-state.js";
import { announceCall, recordResult, takeTurn } from "./turn.js";

/** Settings of one loop run that are not part of the shared state. */
export interface LoopSettings extends CallSettings {
  /** The agent's name, for `run_start`. */
  agent: string;
  instructions?: string;
  input: string;
  /** Read before every model call: tool sources (MCP servers) may change the list mid-run. */
  tools: () => ToolSpec[];
  /** Names of tools that must end the run; empty when a plain-text answer ends it. */
  endTools: string[];
  /** Feedback for a text answer when `endTools` is not empty. */
  textNotAllowed: string;
  toolChoice?: ToolChoice;
  /** A stored run continued (`run_start` says so; where it starts is the `start` hook's answer). */
  resumed?: boolean;
  /** The run sent no new user message: it continues its history (`run_start` says so). */
  continued?: boolean;
}

/**
 * The agent loop, shared by `run()` and `stream()`: check the budget, call the model, record its
 * answer, handle its tool calls, repeat until an answer ends the run or a limit stops it. What is
 * optional acts through `state.hooks` (hooks.ts).
 */
export async function runLoop(state: RunState<unknown>, settings: LoopSettings): Promise<FinalAnswer> {
  const { emit, budget, hooks } = state;
  const maxRetries = budget.limits.maxRetries ?? LIMIT_DEFAULTS.maxRetries;
  let retries = 0;
  // Nobody listening (`silent`): no event object is built at all.
  if (emit !== silent)
    emit({
      type: "run_start",
      agent: settings.agent,
      model: state.model.id,
      input: settings.input,
      limits: { ...budget.limits },
      ...(settings.resumed && { resumed: true }),
      ...(settings.continued && { continued: true }),
    });
  let outcome: FinalAnswer;
  try {
    const position = hooks.start ? await hooks.start(state) : undefined;
    let step = position?.step ?? 1;
    // A resumed run first finishes the turn its crash interrupted, by the live step's own code.
    const pending = position?.pendingTurn;
    let result =
      pending && (await actOn(state, settings, step, pending).catch((e) => stopped(state, step, e)));
    // A history passed in with unanswered calls (say, from a crashed run) is closed first.
    closeOpenCalls(state, 0, "the earlier run was interrupted before this call ran");
    for (; ; step++) {
      if (!result) {
        const breach = budget.beforeModelCall();
        if (breach) throw budgetError(state, breach);
        if (state.stop.aborted) throw abortError(state);
        result = await runStep(state, settings, step);
      }
      if (hooks.decide) result = await hooks.decide(state, step, result);
      if (result.kind === "done") break;
      if (result.unusable !== undefined) {
        if (++retries > maxRetries)
          throw new ModelBehaviorError(result.unusable, maxRetries, errorState(state));
      } else if (!result.reviewed) retries = 0;
      result = undefined;
    }
    outcome = result.outcome;
    if (emit !== silent)
      emit({
        type: "run_end",
        status: "ok",
        usage: state.meter.snapshot(),
        output: outcome.output,
        messages: state.messages,
      });
  } catch (error) {
    const runError = toRunError(state, error);
    const status = runStatusOf(runError);
    // A pause for approval is no failure: it is reported by its own status, and it is no end.
    if (status !== "awaiting_approval")
      emit({ type: "error", code: runError.code, message: runError.message });
    emit({ type: "run_end", status, usage: runError.usage, messages: runError.messages });
    if (hooks.end && status !== "awaiting_approval") await hooks.end(state, { ok: false, error: runError });
    throw runError;
  }
  if (hooks.end) await hooks.end(state, { ok: true, outcome });
  return outcome;
}

/** One step: the model call, its answer recorded, then what the answer comes to. */
async function runStep(state: RunState<unknown>, settings: LoopSettings, step: number): Promise<StepResult> {
  const { emit, meter, hooks } = state;
  // Whatever the last step added (tool results, feedback) is durable before the next model call.
  // (No await at all without a hook: awaiting undefined still costs a tick every step.)
  if (hooks.beforeModelCall) await hooks.beforeModelCall(state, step);
  meter.startStep(step);
  emit({ type: "step_start", step });
  const started = performance.now();
  try {
    const response = await modelAnswer(state, settings, step);
    const assistant = toAssistantMessage(response, step, state.messages);
    // Refused-by-size calls keep a marker, not their bytes, before anything stores or re-sends them.
    if (assistant.toolCalls) assistant.toolCalls = state.environment.admit(assistant.toolCalls);
    state.messages.push(assistant);
    if (hooks.afterResponse) await hooks.afterResponse(state, step, assistant, response.finishReason);
    const breach = state.budget.afterModelCall();
    if (breach) throw budgetError(state, breach);
    const calls = assistant.toolCalls ?? [];
    return await actOn(state, settings, step, { assistant, finishReason: response.finishReason, calls });
  } catch (error) {
    return stopped(state, step, error);
  } finally {
    const durationMs = performance.now() - started;
    meter.endStep(durationMs);
    if (emit !== silent) emit({ type: "step_end", step, durationMs, usage: meter.progress() });
  }
}

/**
 * What an answer comes to, for a live step and a resumed run's stored answer alike: text or a
 * cut-off ending is decided by decideAnswer below, otherwise the turn's `calls` run.
 */
function actOn(
  state: RunState<unknown>,
  settings: LoopSettings,
  step: number,
  turn: Omit<PendingTurn, "known"> & { known?: PendingTurn["known"] },
): Promise<StepResult> {
  const { assistant, calls, known } = turn;
  const decided = decideAnswer(state, settings, step, assistant, turn.finishReason, calls);
  if (!decided) return takeTurn(state, step, calls, known);
  state.hooks.afterTurn?.(state, step, { prepared: [], outcomes: [], resumed: known !== undefined });
  return Promise.resolve(decided);
}

/**
 * Invariant 1 when a step throws: every call still open gets a result, then the error goes on;
 * except when the run pauses for a person (an approval, or a tool's question): its calls stay open,
 * to run (or be rejected) on resume.
 */
function stopped(state: RunState<unknown>, step: number, error: unknown): never {
  if (runStatusOf(error) !== "awaiting_approval")
    closeOpenCalls(
      state,
      step,
      `the run stopped (${error instanceof GlassloopError ? error.code : "error"})`,
    );
  throw error;
}

/** The step's model call, through the hooks around it (context view, planning, an engine's step). */
function modelAnswer(state: RunState<unknown>, settings: LoopSettings, step: number): Promise<ModelResponse> {
  const tools = settings.tools();
  const { messages } = state;
  // The whole transcript after the system message, a fresh array: the hooks may shape it.
  // (One literal with every key, so every step's request has the same shape.)
  const request: StepRequest = {
    instructions: settings.instructions,
    messages: messages.slice(messages[0]?.role === "system" ? 1 : 0),
    tools,
    toolChoice: settings.toolChoice,
  };
  const call = (r: StepRequest) => callModel(state, step, stepRequest(r, settings, state.stop));
  return state.hooks.modelCall ? state.hooks.modelCall(state, step, request, call) : call(request);
}

function toRunError(state: RunState<unknown>, error: unknown): RunError {
  if (error instanceof RunError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new RunError("internal", `The run failed unexpectedly: ${detail}`, errorState(state), {
    cause: error,
  });
}

/**
 * Invariant 1 on every exit path: each call still without a result gets an explicit one, so the
 * transcript never holds an orphan, whatever ended the run. The result goes right after its
 * turn's other results (providers reject anything between a call and its result, e.g. the new
 * user message after a history that ended mid-turn), and pairing is per turn, because some
 * models reuse ids across turns.
 */
export function closeOpenCalls(state: RunState<unknown>, step: number, reason: string): void {
  const { messages } = state;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message?.role !== "assistant" || !message.toolCalls?.length) continue;
    const answered = new Set<string>();
    let end = i + 1;
    for (let next = messages[end]; next?.role === "tool"; next = messages[++end])
      answered.add(next.toolCallId);
    const results = message.toolCalls
      .filter((call) => !answered.has(call.id))
      .map((call) => notExecuted(state, step, call, `${reason}.`));
    messages.splice(end, 0, ...results);
    i = end + results.length - 1;
  }
}

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
  for (const call of calls) state.messages.push(notExecuted(state, step, call, cut.call));
  return { kind: "next", unusable: cut.detail };
}

/** The result of a call that does not run, announced and recorded like any other: `Not executed: why`. */
function notExecuted(state: RunState<unknown>, step: number, call: ToolCall, why: string): ToolMessage {
  announceCall(state, step, call);
  return recordResult(state, step, call, { status: "not_executed", content: `Not executed: ${why}` });
}
