import type { ErrorCode } from "./vocabulary/error-codes.js";
import type { LimitName } from "./vocabulary/limits.js";
import type { Message } from "./vocabulary/messages.js";
import type { RunStatus } from "./vocabulary/status.js";
import type { RunUsage } from "./vocabulary/usage.js";

/** Base class of every error glassloop throws on purpose; `code` is stable and meant for `switch`. */
export class GlassloopError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

// A mark every copy of glassloop in one process shares (Symbol.for is process-wide): a TypeScript
// module that tsx loads from a clone's sources (tsconfig paths) gets its own copy of these classes
// beside the built CLI's, and `instanceof` tells them apart.
const GLASSLOOP_ERROR = Symbol.for("glassloop.error");
Object.defineProperty(GlassloopError.prototype, GLASSLOOP_ERROR, { value: true });

/**
 * The glassloop code of `error`, also when another copy of glassloop in this process made it;
 * `undefined` for any other value. For the checks that decide what an error means (an exit code,
 * a trial that could not start), where a second copy must not turn a configuration error into a
 * failure.
 */
export function glassloopCodeOf(error: unknown): ErrorCode | undefined {
  if (error instanceof GlassloopError) return error.code;
  if (!(error instanceof Error) || (error as unknown as Record<symbol, unknown>)[GLASSLOOP_ERROR] !== true) {
    return undefined;
  }
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? (code as ErrorCode) : undefined;
}

/** State of a run at the moment it stopped, attached to every error that ends a run. */
export interface RunErrorState {
  runId: string;
  messages: Message[];
  usage: RunUsage;
}

/** An error that ended a run; carries the transcript and usage so far, so nothing is lost. */
export class RunError extends GlassloopError {
  readonly runId: string;
  /** The transcript up to the stop, every tool call paired with a result (invariant 1). */
  readonly messages: Message[];
  readonly usage: RunUsage;
  constructor(code: ErrorCode, message: string, state: RunErrorState, options?: { cause?: unknown }) {
    super(code, message, options);
    this.runId = state.runId;
    this.messages = state.messages;
    this.usage = state.usage;
  }
}

/** A budget in `limits` was reached; the run stopped before spending more. */
export class BudgetExceededError extends RunError {
  readonly limit: LimitName;
  readonly used: number;
  readonly max: number;
  constructor(limit: LimitName, used: number, max: number, state: RunErrorState) {
    super(
      "budget_exceeded",
      `Budget exceeded: ${limit} (used ${formatNumber(used)} of ${formatNumber(max)})`,
      state,
    );
    this.limit = limit;
    this.used = used;
    this.max = max;
  }
}

/** The model kept repeating the same tool call with the same arguments. */
export class LoopDetectedError extends RunError {
  readonly toolName: string;
  readonly repeats: number;
  constructor(toolName: string, repeats: number, state: RunErrorState) {
    super(
      "loop_detected",
      `Loop detected: the model requested ${toolName} with identical arguments ${repeats} times in a row`,
      state,
    );
    this.toolName = toolName;
    this.repeats = repeats;
  }
}

/** The model produced unusable output more often in a row than `limits.maxRetries` allows. */
export class ModelBehaviorError extends RunError {
  readonly retries: number;
  constructor(detail: string, retries: number, state: RunErrorState) {
    super(
      "model_behavior",
      `The model's output was still unusable after ${retries} retries: ${detail}`,
      state,
    );
    this.retries = retries;
  }
}

/** The caller's abort signal fired; the run stopped promptly. */
export class RunAbortedError extends RunError {
  constructor(state: RunErrorState, reason?: unknown) {
    super("aborted", "The run was aborted", state, { cause: reason });
  }
}

/**
 * An abort reason that suspends a durable run instead of ending it: the run stops as an aborted
 * one does, but no end is recorded, so it stays `running` at its last checkpoint for its process
 * to release and another to resume (a server handing its runs over as it stops). Pass it to the
 * run's `AbortController.abort`.
 */
export class RunSuspendedError extends GlassloopError {
  constructor(message = "The run was suspended to be continued elsewhere") {
    super("aborted", message);
  }
}

/** A model call failed (network, provider, script); wraps the cause with the run's state. */
export class ModelCallError extends RunError {
  constructor(cause: unknown, state: RunErrorState) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(
      cause instanceof GlassloopError ? cause.code : "model_error",
      `Model call failed: ${detail}`,
      state,
      { cause },
    );
  }
}

/**
 * Throw inside a tool's `run` to send `message` to the model verbatim, as the tool's error result.
 * Any other exception reaches the model only as a short generic message.
 */
export class ToolError extends GlassloopError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("tool_error", message, options);
  }
}

/** Invalid configuration of an agent, a tool or a registry, found before anything runs. */
export class ConfigError extends GlassloopError {
  constructor(message: string) {
    super("config", message);
  }
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(4);
}

/**
 * How a run that threw `error` ended: the one mapping the loop, the store, replay and the CLI
 * share. A pause for a person (an approval, or an answer to a tool's question) is
 * `awaiting_approval`; anything that is not a budget stop or an
 * abort (including a non-glassloop exception) is `failed`.
 */
export function runStatusOf(error: unknown): RunStatus {
  if (!(error instanceof GlassloopError)) return "failed";
  switch (error.code) {
    case "budget_exceeded":
    case "aborted":
    case "awaiting_approval":
      return error.code;
    case "awaiting_input":
      return "awaiting_approval";
    default:
      return "failed";
  }
}
