/**
 * How a run starts: the transcript it starts from, its shared state and event emitter, and the
 * features attached to it (a feature the run cannot use is not attached at all).
 */
import { ConfigError } from "../core/errors.js";
import { checkFile } from "../core/files.js";
import { imageProblem } from "../core/images.js";
import type { RecordedAnswers } from "../core/questions.js";
import { RunStop, type StopWatcher } from "../core/stop.js";
import type { AgentEvent, EventInit } from "../core/vocabulary/events.js";
import type { Limits } from "../core/vocabulary/limits.js";
import { type FilePart, type ImagePart, lastUserText, type Message } from "../core/vocabulary/messages.js";
import { type ApprovalDecision, ApprovalGate, type ApprovalHandler } from "../features/approval/approval.js";
import { ContextView, compactAndRetry, contextHooks, isContextOverflow } from "../features/context-view.js";
import { durabilityHooks } from "../features/durability/durable.js";
import type { AttachedRun, Persistence } from "../features/durability/persistence.js";
import { guardrailHooks } from "../features/guardrails/hooks.js";
import { LoopGuard, loopGuardHooks } from "../features/loop-guard.js";
import { planningHooks } from "../features/plan.js";
import { reflectionHooks } from "../features/reflect.js";
import { Budget } from "../loop/budget.js";
import { Environment, type EnvironmentOptions } from "../loop/environment/environment.js";
import { startTimer } from "../loop/environment/timer.js";
import type { RunHooks, RunState } from "../loop/hooks.js";
import { RunTimeout, silent } from "../loop/run-state.js";
import type { UsageMeter } from "../loop/usage.js";
import { parseHistory } from "../memory/message-schema.js";
import type { Model } from "../models/model.js";
import type { RunTools, StoredRun } from "../store/store.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import type { AgentConfig } from "./agent-config.js";
import { composeHooks, NO_HOOKS } from "./compose-hooks.js";
import { checkContinuable } from "./continue-check.js";

/**
 * The transcript a fresh run starts from: the instructions, the history's turns, the new input.
 * A `null` input adds no turn: the run continues the history, which must end where the model
 * speaks next. (A session's history arrives later, through the run's `rebuild`: with none yet,
 * the transcript is the instructions alone.)
 */
export function initialMessages(
  instructions: string | undefined,
  input: string | null,
  history: readonly Message[] | undefined,
  attached: { images?: readonly ImagePart[]; files?: readonly FilePart[] } = {},
): Message[] {
  const past = history === undefined ? [] : parseHistory(history);
  // The agent's current instructions replace whatever system prompt the history began with.
  const body = past[0]?.role === "system" ? past.slice(1) : past;
  const system: Message[] = instructions === undefined ? [] : [{ role: "system", content: instructions }];
  if (input === null) {
    if (history !== undefined) checkContinuable(body);
    return [...system, ...body];
  }
  const turn: Message = { role: "user", content: input };
  const { images, files } = attached;
  if (images !== undefined && images.length > 0) turn.images = checkedInput(images, imageProblem);
  if (files !== undefined && files.length > 0) turn.files = checkedInput(files, checkFile);
  return [...system, ...body, turn];
}

/** A copy of the input's images or files, each checked (a bad one is a ConfigError). */
function checkedInput<P>(parts: readonly P[], problemOf: (part: P) => string | undefined): P[] {
  for (const part of parts) {
    const problem = problemOf(part);
    if (problem) throw new ConfigError(`The run's input has ${problem}`);
  }
  return [...parts];
}

/** How a run starts, besides its input and options. */
export interface StartHow {
  stream: boolean;
  listener: ((event: AgentEvent) => void) | undefined;
  /** The run's stop when the caller made it: a stream fires it when its reader leaves. */
  stop?: RunStop;
  resumed?: StoredRun;
  decisions?: readonly ApprovalDecision[];
  answers?: RecordedAnswers;
}

/** What one run's shared state is built from (already checked by the agent). */
export interface RunStart<TContext> {
  runId: string;
  model: Model;
  registry: ToolRegistry<TContext, unknown, boolean>;
  context: TContext;
  environment: EnvironmentOptions | undefined;
  limits: Limits;
  meter: UsageMeter;
  messages: Message[];
  /** The caller's signal. */
  signal: AbortSignal | undefined;
  /** The run's stop when its caller made it (a stream fires it when its reader leaves). */
  stop?: RunStop;
  listener: ((event: AgentEvent) => void) | undefined;
}

/** A run's shared state, and `finish`, which must be called when the run ends. */
export interface StartedRun<TContext> {
  state: RunState<TContext>;
  /** Cancels the timeout and stops listening to the caller's signal. */
  finish: () => void;
}

/**
 * Builds a run's shared state. Its one stop fires on the caller's signal and on
 * `limits.timeoutMs`, so the loop, the model and the tools need to watch only that one.
 */
export function startRun<TContext>(start: RunStart<TContext>): StartedRun<TContext> {
  const { limits, signal } = start;
  const stop = start.stop ?? new RunStop();
  let onAbort: StopWatcher | undefined;
  if (signal?.aborted) stop.abort(signal.reason);
  else if (signal) {
    onAbort = {
      handleEvent() {
        stop.abort(signal.reason);
      },
    };
    signal.addEventListener("abort", onAbort, { once: true });
  }
  const cancelTimer =
    limits.timeoutMs !== undefined
      ? startTimer(limits.timeoutMs, () => stop.abort(new RunTimeout()))
      : undefined;
  const state = runState(start, stop);
  if (!onAbort && !cancelTimer) return { state, finish: nothing };
  return {
    state,
    finish: () => {
      cancelTimer?.();
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    },
  };
}

const nothing = () => {};

function runState<TContext>(start: RunStart<TContext>, stop: RunStop): RunState<TContext> {
  const { runId, limits, meter } = start;
  return {
    runId,
    model: start.model,
    environment: new Environment(start.registry, start.context, start.environment),
    budget: new Budget(limits, meter),
    meter,
    messages: start.messages,
    stop,
    emit: makeEmitter(runId, start.listener),
    // The agent attaches the run's features once they are built (attachFeatures below).
    hooks: NO_HOOKS,
  };
}

/** Stamps events with the run id and time and hands them to the listener (if there is none, does nothing). */
export function makeEmitter(
  runId: string,
  listener: ((event: AgentEvent) => void) | undefined,
): (event: EventInit) => void {
  if (!listener) return silent;
  return (event) => {
    // Stamped in place, not copied: every init is a fresh literal of the emitting code, and the
    // keys land in the same order a copy would give them.
    const stamped = event as EventInit & { runId: string; time: number };
    stamped.runId = runId;
    stamped.time = Date.now();
    try {
      listener(stamped as AgentEvent);
    } catch (error) {
      // A broken listener must not break invariants mid-turn; it is reported, not fatal.
      process.emitWarning(`glassloop: an event listener threw: ${String(error)}`);
    }
  };
}

/** What one run brings to its features besides the agent's configuration. */
export interface RunFeatureOptions {
  /** The new user message; null when the run continues its history without one. */
  input: string | null;
  session?: string | undefined;
  history?: readonly Message[] | undefined;
  resumed?: StoredRun | undefined;
  /** Decisions on calls a paused run waits for (resume's approve and reject). */
  decisions?: readonly ApprovalDecision[] | undefined;
  onApproval?: ApprovalHandler | undefined;
  /** A durable engine's hooks (run option `hooks`): outermost, so its steps record what the features decided. */
  hooks?: RunHooks | undefined;
  rebuild: (history: readonly Message[]) => Message[];
  /** The tools a new run starts with, recorded so a resume can offer exactly those. */
  tools: RunTools;
}

/**
 * Attaches a run's features, in the order their hooks run (the first is the outermost around a
 * call): guardrails, an engine's hooks, durability, approval, the loop guard, planning, the
 * context view, reflection. A feature the run cannot use is not attached at all, so a default
 * run's step reaches only the compaction after a context overflow. Returns the function that
 * frees the run's session; it must be called once the run is over.
 */
export async function attachFeatures(
  state: RunState<unknown>,
  persistence: Persistence,
  config: Pick<
    AgentConfig<unknown, unknown>,
    "store" | "toolSources" | "loopGuard" | "memory" | "recall" | "plan" | "reflect" | "guardrails"
  >,
  run: RunFeatureOptions,
): Promise<() => void> {
  const tools = state.environment.registry.list();
  // The guard answers repeated tool calls: a run that can make none (no tools, and no tool source
  // that could add one mid-run) has nothing for it to remember or stop.
  const callsTools = tools.length > 0 || (config.toolSources?.length ?? 0) > 0;
  const guard = config.loopGuard === false || !callsTools ? undefined : new LoopGuard(config.loopGuard);
  const gated = tools.some((t) => t.needsApproval);
  // A run that may pause for approval must be stored to be resumed, like a session run.
  // So must one whose tool sources may pause it with a question, unless a durable engine runs it
  // (its hooks keep their own record, and such a question fails the call there).
  const asks = run.hooks === undefined && (config.toolSources ?? []).some((source) => source.mayAsk === true);
  const mayPause = (gated && run.onApproval === undefined) || asks;
  // Stored only when it has to be: a store was given, it continues a session or a stored run, or
  // it may pause. Otherwise nothing is stored, so the store is not even loaded.
  const stored =
    config.store !== undefined || run.session !== undefined || run.resumed !== undefined || mayPause;
  const attached: AttachedRun | undefined = stored
    ? await persistence.attach(state, {
        input: run.input,
        session: run.session,
        history: run.history,
        resumed: run.resumed,
        guard,
        rebuild: run.rebuild,
        tools: run.tools,
      })
    : undefined;
  const durable = attached?.durable;
  if (attached?.messages) state.messages = attached.messages;
  // With no new message, what the run answers is the conversation's last user message.
  const input = run.input ?? lastUserText(state.messages);
  const features: RunHooks[] = [];
  // Guardrails outermost, even around a durable engine's steps: each check is a side step of its
  // own, and a call a guardrail refuses never becomes a tool step or a checkpoint.
  if (config.guardrails) features.push(guardrailHooks(config.guardrails, input));
  if (run.hooks) features.push(run.hooks);
  if (durable) features.push(durabilityHooks(durable, run.resumed));
  if (gated || run.decisions) {
    const gate = new ApprovalGate({
      ...(run.decisions && { decisions: run.decisions }),
      ...(run.onApproval && { handler: run.onApproval }),
      ...(durable && { pause: (s: RunState<unknown>, pending) => durable.pause(s, pending) }),
    });
    features.push(gate.hooks());
  }
  if (guard) features.push(loopGuardHooks(guard));
  const { plan, memory, recall, reflect } = config;
  if (plan) features.push(planningHooks(plan === true || plan.reviseOnFailure !== false));
  features.push(
    memory || recall
      ? contextHooks({ ...(memory && { memory }), ...(recall && { recall }), input })
      : { modelCall: overflowCompaction(input) },
  );
  if (reflect) features.push(reflectionHooks(reflect, input));
  // One feature is its own hooks object: nothing to join.
  state.hooks = features.length === 1 ? (features[0] as RunHooks) : composeHooks(features);
  return attached?.release ?? noRelease;
}

const noRelease = () => {};

type ModelCallHook = NonNullable<RunHooks["modelCall"]>;

/**
 * Compaction after a context overflow, on for every run without a memory strategy or recall: a
 * call goes out as the loop built it, and the first one the provider refuses as too long builds
 * the context view (features/context-view.ts), which compacts and retries it; every later call
 * of the run goes through that view, so the run stays under the limit.
 */
function overflowCompaction(input: string): ModelCallHook {
  let viewed: ModelCallHook | undefined;
  // Not an async function: a call that succeeds passes its own promise on, with no frame around it.
  return (state, step, request, next) => {
    if (viewed) return viewed(state, step, request, next);
    return next(request).catch((error: unknown) => {
      if (!isContextOverflow(error)) throw error;
      const view = new ContextView({});
      viewed = contextHooks({ input, view }).modelCall;
      return compactAndRetry(view, state, step, request, request, error, input, next);
    });
  };
}
