import { GlassloopError, ModelBehaviorError, ModelCallError, RunError } from "../errors.js";
import type { AssistantMessage, Message, ToolCall } from "../memory/messages.js";
import type { FinishReason, ModelResponse, ToolChoice, ToolSpec } from "../models/model.js";
import { ApprovalRequiredError } from "./approval.js";
import { LIMIT_DEFAULTS } from "./budget.js";
import { callThroughView, type RequestParts } from "./context-view.js";
import type { RunStatus } from "./events.js";
import { PLAN_TOOL, planSteps } from "./plan.js";
import { type ReflectOptions, rejectionFeedback, type Verdict } from "./reflect.js";
import { abortError, budgetError, closeOpenCalls, errorState, type RunState } from "./run-state.js";
import { runTurn } from "./turn.js";

/** Settings of one loop run that are not part of the shared state. */
export interface LoopSettings {
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
  /** Planning: force `update_plan` first and after failed steps. */
  plan?: { reviseOnFailure: boolean };
  reflect?: ReflectOptions;
  /** Continues a stored run: finishes its interrupted turn and says which step comes next (resume.ts). */
  resume?: (state: RunState<unknown>) => Promise<{ result?: StepResult; step: number }>;
}

/** How a successful run ended. */
export interface LoopOutcome {
  output: unknown;
  /** `text` for a plain answer, otherwise the name of the tool that ended the run. */
  finishedBy: string;
}

/** Feedback for a text answer the provider did not let the model finish. */
const CUT_OFF: Partial<Record<FinishReason, { feedback: string; detail: string }>> = {
  length: {
    feedback: "Your answer was cut off at the output token limit. Answer again, more briefly.",
    detail: "its answer was cut off at the output token limit",
  },
  content_filter: {
    feedback: "Your answer was stopped by the provider's content filter. Answer again differently.",
    detail: "its answer was stopped by the content filter",
  },
};

/** What one step (or a resumed run's interrupted turn) came to. */
export type StepResult =
  | { kind: "done"; outcome: LoopOutcome }
  | { kind: "next"; unusable?: string; failed?: boolean };

/**
 * The agent loop, shared by `run()` and `stream()`: check the budget, call the model, record its
 * answer, handle its tool calls, repeat until an answer ends the run or a limit stops it.
 */
export async function runLoop(state: RunState<unknown>, settings: LoopSettings): Promise<LoopOutcome> {
  const { emit, budget } = state;
  const maxRetries = budget.limits.maxRetries ?? LIMIT_DEFAULTS.maxRetries;
  let retries = 0;
  let rounds = 0;
  let mustPlan = settings.plan !== undefined;
  let revision = 0;
  emit({
    type: "run_start",
    model: state.model.id,
    input: settings.input,
    limits: { ...budget.limits },
    ...(settings.resume && { resumed: true }),
  });
  try {
    // A resumed run first finishes the turn its crash interrupted (see resume.ts).
    const resumed = settings.resume ? await settings.resume(state) : undefined;
    let carried = resumed?.result;
    // A history passed in with unanswered calls (say, from a crashed run) is closed first.
    closeOpenCalls(state, 0, "the earlier run was interrupted before this call ran");
    for (let step = resumed?.step ?? 1; ; step++) {
      let result: StepResult;
      if (carried) {
        result = carried;
        carried = undefined;
      } else {
        const breach = budget.beforeModelCall();
        if (breach) throw budgetError(state, breach);
        if (state.signal.aborted) throw abortError(state);
        const toolChoice = mustPlan ? { name: PLAN_TOOL } : settings.toolChoice;
        result = await runStep(
          state,
          { ...settings, ...(toolChoice && { toolChoice }) },
          step,
          () => revision++,
        );
      }
      if (result.kind === "done" && settings.reflect) {
        const verdict = await judge(state, settings, result.outcome, ++rounds);
        if (!verdict.accept) {
          state.messages.push({ role: "user", content: rejectionFeedback(verdict.feedback) });
          continue;
        }
      }
      if (result.kind === "done") {
        emit({
          type: "run_end",
          status: "ok",
          usage: state.meter.snapshot(),
          output: result.outcome.output,
          messages: state.messages,
        });
        return result.outcome;
      }
      if (settings.plan) mustPlan = settings.plan.reviseOnFailure && result.failed === true;
      if (result.unusable === undefined) retries = 0;
      else if (++retries > maxRetries)
        throw new ModelBehaviorError(result.unusable, maxRetries, errorState(state));
    }
  } catch (error) {
    const runError = toRunError(state, error);
    if (!(runError instanceof ApprovalRequiredError))
      emit({ type: "error", code: runError.code, message: runError.message });
    emit({ type: "run_end", status: statusOf(runError), usage: runError.usage, messages: runError.messages });
    throw runError;
  }
}

async function runStep(
  state: RunState<unknown>,
  settings: LoopSettings,
  step: number,
  nextRevision: () => number,
): Promise<StepResult> {
  const { emit, meter, budget } = state;
  // Whatever the last step added (tool results, feedback) is durable before the next model call.
  await state.durable?.checkpoint(state);
  meter.startStep(step);
  emit({ type: "step_start", step });
  const started = performance.now();
  try {
    const response = await callModel(state, settings, step);
    const assistant = toAssistantMessage(response, step, state.messages);
    state.messages.push(assistant);
    await state.durable?.checkpoint(state);
    const breach = budget.afterModelCall();
    if (breach) throw budgetError(state, breach);
    if (!assistant.toolCalls) {
      // A turn without calls breaks a run of repeats: only consecutive turns count.
      state.guard?.nextTurn();
      // A text cut off by the token limit or a filter is not an answer the run may report.
      const cut = CUT_OFF[response.finishReason];
      if (cut) {
        state.messages.push({ role: "user", content: cut.feedback });
        return { kind: "next", unusable: cut.detail };
      }
      if (settings.endTools.length === 0)
        return { kind: "done", outcome: { output: response.text, finishedBy: "text" } };
      state.messages.push({ role: "user", content: settings.textNotAllowed });
      return { kind: "next", unusable: "it answered with text where a tool call must end the run" };
    }
    const turn = await runTurn(state, step, assistant.toolCalls);
    if (settings.plan) {
      for (const call of assistant.toolCalls) {
        const steps = planSteps(call);
        if (steps) state.emit({ type: "plan", step, steps, revision: nextRevision() });
      }
    }
    if (turn.kind === "end")
      return { kind: "done", outcome: { output: turn.output, finishedBy: turn.toolName } };
    return { kind: "next", failed: turn.failed, ...(turn.unusable && { unusable: turn.detail }) };
  } catch (error) {
    // A run paused for approval keeps its calls open: they run (or are rejected) on resume.
    if (!(error instanceof ApprovalRequiredError))
      closeOpenCalls(
        state,
        step,
        `the run stopped (${error instanceof GlassloopError ? error.code : "error"})`,
      );
    throw error;
  } finally {
    const durationMs = performance.now() - started;
    meter.endStep(durationMs);
    emit({ type: "step_end", step, durationMs, usage: meter.progress() });
  }
}

/** A model call on what the run's view selects (memory strategy, recall; compaction on overflow). */
function callModel(state: RunState<unknown>, settings: LoopSettings, step: number): Promise<ModelResponse> {
  const tools = settings.tools();
  const base = { ...settings, tools };
  return callThroughView(state, base, step, (parts) => callModelWith(state, settings, step, tools, parts));
}

async function callModelWith(
  state: RunState<unknown>,
  settings: LoopSettings,
  step: number,
  tools: ToolSpec[],
  parts: RequestParts,
): Promise<ModelResponse> {
  const { emit, model, signal } = state;
  const started = performance.now();
  const generation = model.generate(
    {
      ...(parts.instructions !== undefined && { instructions: parts.instructions }),
      messages: parts.messages,
      tools,
      ...(settings.toolChoice !== undefined && { toolChoice: settings.toolChoice }),
      stream: settings.stream,
      ...(settings.maxOutputTokens !== undefined && { maxOutputTokens: settings.maxOutputTokens }),
      ...(settings.temperature !== undefined && { temperature: settings.temperature }),
      signal,
    },
    {
      onRequest: ({ body, url, attempt }) =>
        emit({
          type: "model_request",
          step,
          model: model.id,
          attempt,
          body,
          ...(url !== undefined && { url }),
        }),
      onDelta: (delta) => {
        if (delta.type === "text" && delta.text) emit({ type: "text_delta", step, text: delta.text });
      },
      onRetry: ({ attempt, delayMs, error }) => emit({ type: "model_retry", step, attempt, delayMs, error }),
    },
  );
  let response: ModelResponse;
  try {
    // Raced with the signal so a model that ignores it still cannot hold the run.
    response = await raceAbort(generation, signal);
  } catch (error) {
    generation.catch(() => {});
    if (signal.aborted) throw abortError(state);
    throw error instanceof RunError ? error : new ModelCallError(error, errorState(state));
  }
  state.meter.addModelCall(response.usage);
  emit({
    type: "model_response",
    step,
    text: response.text,
    toolCalls: response.toolCalls,
    finishReason: response.finishReason,
    usage: response.usage,
    latencyMs: performance.now() - started,
    ...(response.raw !== undefined && { raw: response.raw }),
  });
  return response;
}

/** Asks the evaluator about a candidate answer; past `maxRounds` rejections the run fails. */
async function judge(
  state: RunState<unknown>,
  settings: LoopSettings,
  outcome: LoopOutcome,
  round: number,
): Promise<Verdict> {
  const reflect = settings.reflect as ReflectOptions;
  const verdict = await reflect.evaluator(
    { input: settings.input, output: outcome.output, messages: state.messages },
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

/** `promise`, or a rejection as soon as `signal` fires; the listener never outlives the call. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort = () => {};
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, stopped]).finally(() => signal.removeEventListener("abort", onAbort));
}

/** The assistant message for a response; empty or duplicate call ids are replaced so pairing holds. */
function toAssistantMessage(
  response: ModelResponse,
  step: number,
  transcript: readonly Message[],
): AssistantMessage {
  if (response.toolCalls.length === 0) return { role: "assistant", content: response.text };
  const seen = new Set<string>();
  let earlier: Set<string> | undefined;
  // Only a missing or repeated id needs the transcript's ids (a generated one must be new to it).
  const taken = (id: string) => {
    earlier ??= idsIn(transcript);
    return seen.has(id) || earlier.has(id);
  };
  const toolCalls: ToolCall[] = response.toolCalls.map((call, i) => {
    let id = call.id;
    if (!id || seen.has(id)) {
      // A generated id must not collide with one the model sent, nor with one already in the
      // transcript (an earlier run this one continues generated ids too).
      id = "";
      for (let n = i; !id || taken(id); n++) id = `call_${step}_${n}`;
    }
    seen.add(id);
    return { id, name: call.name, arguments: call.arguments };
  });
  return { role: "assistant", content: response.text, toolCalls };
}

function idsIn(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) if (m.role === "assistant") for (const c of m.toolCalls ?? []) ids.add(c.id);
  return ids;
}

function toRunError(state: RunState<unknown>, error: unknown): RunError {
  if (error instanceof RunError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new RunError("internal", `The run failed unexpectedly: ${detail}`, errorState(state), {
    cause: error,
  });
}

function statusOf(error: RunError): RunStatus {
  if (error.code === "budget_exceeded") return "budget_exceeded";
  if (error.code === "aborted") return "aborted";
  if (error instanceof ApprovalRequiredError) return "awaiting_approval";
  return "failed";
}
