import { ConfigError } from "../core/errors.js";
import { checkFile } from "../core/files.js";
import { imageProblem } from "../core/images.js";
import type { AgentEvent, EventInit } from "../core/vocabulary/events.js";
import type { Limits } from "../core/vocabulary/limits.js";
import type { FilePart, ImagePart, Message } from "../core/vocabulary/messages.js";
import { Budget } from "../loop/budget.js";
import { Environment, type EnvironmentOptions } from "../loop/environment/environment.js";
import { startTimer } from "../loop/environment/timer.js";
import type { RunState } from "../loop/hooks.js";
import { RunTimeout, silent } from "../loop/run-state.js";
import type { UsageMeter } from "../loop/usage.js";
import { parseHistory } from "../memory/message-schema.js";
import type { Model } from "../models/model.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { NO_HOOKS } from "./compose-hooks.js";

/** The transcript a fresh run starts from: the instructions, the history's turns, the new input. */
export function initialMessages(
  instructions: string | undefined,
  input: string,
  history: readonly Message[] | undefined,
  attached: { images?: readonly ImagePart[]; files?: readonly FilePart[] } = {},
): Message[] {
  const past = history === undefined ? [] : parseHistory(history);
  // The agent's current instructions replace whatever system prompt the history began with.
  const body = past[0]?.role === "system" ? past.slice(1) : past;
  const system: Message[] = instructions === undefined ? [] : [{ role: "system", content: instructions }];
  const turn: Message = { role: "user", content: input };
  const { images, files } = attached;
  if (images !== undefined && images.length > 0) {
    for (const image of images) {
      const problem = imageProblem(image);
      if (problem) throw new ConfigError(`The run's input has ${problem}`);
    }
    turn.images = [...images];
  }
  if (files !== undefined && files.length > 0) {
    for (const file of files) {
      const problem = checkFile(file);
      if (problem) throw new ConfigError(`The run's input has ${problem}`);
    }
    turn.files = [...files];
  }
  return [...system, ...body, turn];
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
  listener: ((event: AgentEvent) => void) | undefined;
}

/** A run's shared state, and `stop`, which must be called when the run ends. */
export interface StartedRun<TContext> {
  state: RunState<TContext>;
  /** Cancels the timeout and stops listening to the caller's signal. */
  stop: () => void;
}

/**
 * Builds a run's shared state. Its one abort signal fires on the caller's signal and on
 * `limits.timeoutMs`, so the loop, the model and the tools need to watch only that one.
 */
export function startRun<TContext>(start: RunStart<TContext>): StartedRun<TContext> {
  const { runId, limits, meter, signal } = start;
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  const cancelTimer =
    limits.timeoutMs !== undefined
      ? startTimer(limits.timeoutMs, () => controller.abort(new RunTimeout()))
      : undefined;
  const state: RunState<TContext> = {
    runId,
    model: start.model,
    environment: new Environment(start.registry, start.context, start.environment),
    budget: new Budget(limits, meter),
    meter,
    messages: start.messages,
    signal: controller.signal,
    emit: makeEmitter(runId, start.listener),
    // The agent attaches the run's features once they are built (run-features.ts).
    hooks: NO_HOOKS,
  };
  return {
    state,
    stop: () => {
      cancelTimer?.();
      signal?.removeEventListener("abort", onAbort);
    },
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
