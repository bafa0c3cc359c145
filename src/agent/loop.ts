import { GlassloopError, ModelBehaviorError, RunError, runStatusOf } from "../errors.js";
import type { ModelResponse, ToolChoice, ToolSpec } from "../models/model.js";
import { decideAnswer } from "./answer.js";
import { ApprovalRequiredError } from "./approval.js";
import { toAssistantMessage } from "./assistant-message.js";
import { LIMIT_DEFAULTS } from "./budget.js";
import { callThroughView } from "./context-view.js";
import { callModel } from "./model-call.js";
import { PLAN_TOOL, planSteps } from "./plan.js";
import { judge, type ReflectOptions, rejectionFeedback } from "./reflect.js";
import { abortError, budgetError, closeOpenCalls, errorState, type RunState, silent } from "./run-state.js";
import { runTurn } from "./turn.js";

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
  const nextRevision = () => revision++;
  emit({
    type: "run_start",
    agent: settings.agent,
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
        // Copied only when planning forces the choice: a copy of the settings per step is waste.
        result = await runStep(
          state,
          mustPlan ? { ...settings, toolChoice: { name: PLAN_TOOL } } : settings,
          step,
          nextRevision,
        );
      }
      if (result.kind === "done" && settings.reflect) {
        const verdict = await judge(state, settings.reflect, settings.input, result.outcome.output, ++rounds);
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
    emit({
      type: "run_end",
      status: runStatusOf(runError),
      usage: runError.usage,
      messages: runError.messages,
    });
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
  // (No await at all without a store: awaiting undefined still costs a tick every step.)
  if (state.durable) await state.durable.checkpoint(state);
  meter.startStep(step);
  emit({ type: "step_start", step });
  const started = performance.now();
  try {
    const response = await modelAnswer(state, settings, step);
    const assistant = toAssistantMessage(response, step, state.messages);
    // Refused-by-size calls keep a marker, not their bytes, before anything stores or re-sends them.
    if (assistant.toolCalls) assistant.toolCalls = state.environment.admit(assistant.toolCalls);
    state.messages.push(assistant);
    if (state.durable) await state.durable.answered(state, assistant, response.finishReason);
    const breach = budget.afterModelCall();
    if (breach) throw budgetError(state, breach);
    // Text, or a cut-off ending: decided here and on resume by the same code (answer.ts).
    const decided = decideAnswer(state, settings, step, assistant, response.finishReason);
    if (decided) return decided;
    const calls = assistant.toolCalls ?? [];
    const turn = await runTurn(state, step, calls);
    if (settings.plan) {
      for (const call of calls) {
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
    if (emit !== silent) emit({ type: "step_end", step, durationMs, usage: meter.progress() });
  }
}

/** A model call on what the run's view selects (memory strategy, recall; compaction on overflow). */
function modelAnswer(state: RunState<unknown>, settings: LoopSettings, step: number): Promise<ModelResponse> {
  const tools = settings.tools();
  const base = { instructions: settings.instructions, input: settings.input, tools };
  return callThroughView(state, base, step, (parts) => callModel(state, settings, step, tools, parts));
}

function toRunError(state: RunState<unknown>, error: unknown): RunError {
  if (error instanceof RunError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new RunError("internal", `The run failed unexpectedly: ${detail}`, errorState(state), {
    cause: error,
  });
}
