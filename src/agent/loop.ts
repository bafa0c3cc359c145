import { GlassloopError, ModelBehaviorError, RunError, runStatusOf } from "../errors.js";
import type { ModelResponse, ToolChoice, ToolSpec } from "../models/model.js";
import type { AssistantMessage, FinishReason, ToolCall } from "../vocabulary/messages.js";
import type { ToolOutcome } from "../vocabulary/outcome.js";
import { decideAnswer } from "./answer.js";
import { toAssistantMessage } from "./assistant-message.js";
import { LIMIT_DEFAULTS } from "./budget.js";
import type { LoopOutcome, StepRequest, StepResult } from "./hooks.js";
import { callModel } from "./model-call.js";
import { abortError, budgetError, closeOpenCalls, errorState, type RunState, silent } from "./run-state.js";
import { runTurn } from "./turn.js";

export type { LoopOutcome, StepResult } from "./hooks.js";

/** Settings of one loop run that are not part of the shared state. */
export interface LoopSettings {
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
  stream: boolean;
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
  /** A stored run continued (`run_start` says so; where it starts is the `start` hook's answer). */
  resumed?: boolean;
}

/**
 * The agent loop, shared by `run()` and `stream()`: check the budget, call the model, record its
 * answer, handle its tool calls, repeat until an answer ends the run or a limit stops it. What is
 * optional acts through `state.hooks` (hooks.ts).
 */
export async function runLoop(state: RunState<unknown>, settings: LoopSettings): Promise<LoopOutcome> {
  const { emit, budget, hooks } = state;
  const maxRetries = budget.limits.maxRetries ?? LIMIT_DEFAULTS.maxRetries;
  let retries = 0;
  emit({
    type: "run_start",
    agent: settings.agent,
    model: state.model.id,
    input: settings.input,
    limits: { ...budget.limits },
    ...(settings.resumed && { resumed: true }),
  });
  let outcome: LoopOutcome;
  try {
    const position = hooks.start ? await hooks.start(state) : undefined;
    let step = position?.step ?? 1;
    // A resumed run first finishes the turn its crash interrupted, by the live step's own code.
    const pending = position?.pendingTurn;
    let result: StepResult | undefined;
    if (pending) {
      try {
        result = await actOn(
          state,
          settings,
          step,
          pending.assistant,
          pending.finishReason,
          pending.calls,
          pending.known,
        );
      } catch (error) {
        closeIfStopped(state, step, error);
        throw error;
      }
    }
    // A history passed in with unanswered calls (say, from a crashed run) is closed first.
    closeOpenCalls(state, 0, "the earlier run was interrupted before this call ran");
    for (; ; step++) {
      if (!result) {
        const breach = budget.beforeModelCall();
        if (breach) throw budgetError(state, breach);
        if (state.signal.aborted) throw abortError(state);
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
    return await actOn(state, settings, step, assistant, response.finishReason, assistant.toolCalls ?? []);
  } catch (error) {
    closeIfStopped(state, step, error);
    throw error;
  } finally {
    const durationMs = performance.now() - started;
    meter.endStep(durationMs);
    if (emit !== silent) emit({ type: "step_end", step, durationMs, usage: meter.progress() });
  }
}

/**
 * What an answer comes to, for a live step and a resumed run's stored answer alike: text or a
 * cut-off ending is decided by answer.ts, otherwise the turn's `calls` run.
 */
function actOn(
  state: RunState<unknown>,
  settings: LoopSettings,
  step: number,
  answer: AssistantMessage,
  finishReason: FinishReason | undefined,
  calls: ToolCall[],
  known?: ReadonlyMap<string, ToolOutcome>,
): Promise<StepResult> {
  const decided = decideAnswer(state, settings, step, answer, finishReason, calls);
  if (!decided) return runTurn(state, step, calls, known);
  state.hooks.afterTurn?.(state, step, { prepared: [], outcomes: [], resumed: known !== undefined });
  return Promise.resolve(decided);
}

/**
 * Invariant 1 when a step throws: every call still open gets a result, except when the run
 * pauses for approval: its calls stay open, to run (or be rejected) on resume.
 */
function closeIfStopped(state: RunState<unknown>, step: number, error: unknown): void {
  if (error instanceof GlassloopError && error.code === "awaiting_approval") return;
  closeOpenCalls(state, step, `the run stopped (${error instanceof GlassloopError ? error.code : "error"})`);
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
  const call = (r: StepRequest) => callModel(state, settings, step, r);
  return state.hooks.modelCall ? state.hooks.modelCall(state, step, request, call) : call(request);
}

function toRunError(state: RunState<unknown>, error: unknown): RunError {
  if (error instanceof RunError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new RunError("internal", `The run failed unexpectedly: ${detail}`, errorState(state), {
    cause: error,
  });
}
