import { ToolError } from "../../core/errors.js";
import { QuestionAsked } from "../../core/questions.js";
import type { ToolCall } from "../../core/vocabulary/messages.js";
import type { ToolOutcome } from "../../core/vocabulary/outcome.js";
import type { AgentTool } from "../../tools/tool.js";
import type { ToolRegistry } from "../../tools/tool-registry.js";
import { CallOptions, type ExecuteOptions } from "./call-options.js";
import { CallStop, ToolTimeout } from "./call-stop.js";
import { abortedOutcome, formatIssues, okOutcome, truncate } from "./feedback.js";
import { omitArguments, omittedFeedback } from "./omitted-arguments.js";

/** Limits the environment enforces on every tool call. */
export interface EnvironmentOptions {
  /** Per-call timeout unless the tool sets its own (default 30,000 ms). */
  toolTimeoutMs?: number;
  /** Longest raw argument text accepted from the model (default 10,000 characters). */
  maxArgumentChars?: number;
  /** Longest result sent back to the model; longer results are truncated (default 20,000). */
  maxResultChars?: number;
  /** Tool calls of one turn that run at the same time (default 4). */
  concurrency?: number;
  /**
   * Tool calls one model answer may make (default 128); the calls past it are refused with
   * feedback, and their arguments are not kept. `limits.maxToolCalls` is the run's whole budget.
   */
  maxToolCallsPerTurn?: number;
}

/** The defaults of `EnvironmentOptions`. */
export const ENVIRONMENT_DEFAULTS: Required<EnvironmentOptions> = {
  toolTimeoutMs: 30_000,
  maxArgumentChars: 10_000,
  maxResultChars: 20_000,
  concurrency: 4,
  maxToolCallsPerTurn: 128,
};

/** A call that passed validation and may run. */
export interface ReadyCall<TContext> {
  kind: "ready";
  call: ToolCall;
  tool: AgentTool<TContext>;
  args: unknown;
}

/** A call refused before running; `content` tells the model what to fix. */
export interface InvalidCall {
  kind: "invalid";
  call: ToolCall;
  content: string;
  /** Details for events and traces only; never sent to the model. */
  errorDetail?: string;
}

/**
 * The boundary between the model and the world: validates the model's arguments, injects the
 * hidden context, enforces timeouts and size limits, and turns every failure into feedback.
 */
export class Environment<TContext> {
  readonly options: Required<EnvironmentOptions>;

  constructor(
    readonly registry: ToolRegistry<TContext, unknown, boolean>,
    readonly context: TContext,
    options?: EnvironmentOptions,
  ) {
    this.options = { ...ENVIRONMENT_DEFAULTS, ...(options && stripUndefined(options)) };
  }

  /**
   * The calls of one model answer as memory keeps them: a call whose arguments are over the size
   * limit, or past the per-turn limit, has its arguments replaced by a marker carrying the
   * refusal, so neither the transcript, the store nor the next request holds the refused bytes.
   * Returns `calls` itself when nothing was refused (the common case allocates nothing).
   */
  admit(calls: ToolCall[]): ToolCall[] {
    const { maxArgumentChars, maxToolCallsPerTurn } = this.options;
    let admitted: ToolCall[] | undefined;
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i] as ToolCall;
      let feedback: string | undefined;
      if (i >= maxToolCallsPerTurn) {
        feedback = `Not run: this answer made ${calls.length} tool calls and at most ${maxToolCallsPerTurn} run per answer. Make the rest in your next answer.`;
      } else if (call.arguments.length > maxArgumentChars) {
        feedback = tooLong(call, maxArgumentChars);
      }
      if (feedback === undefined) continue;
      admitted ??= calls.slice();
      admitted[i] = omitArguments(call, feedback);
    }
    return admitted ?? calls;
  }

  /** Validates one call without running anything. */
  prepare(call: ToolCall): ReadyCall<TContext> | InvalidCall {
    const omitted = omittedFeedback(call.arguments);
    if (omitted !== undefined) return invalid(call, omitted);
    const tool = this.registry.get(call.name);
    if (!tool) {
      const names = this.registry.list().map((t) => t.name);
      return invalid(
        call,
        `Unknown tool "${call.name}". Available tools: ${names.length ? names.join(", ") : "none"}.`,
      );
    }
    const { maxArgumentChars } = this.options;
    if (call.arguments.length > maxArgumentChars) return invalid(call, tooLong(call, maxArgumentChars));
    let json: unknown;
    try {
      // Several providers send "" for a call without arguments.
      json = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return invalid(
        call,
        `Arguments for ${call.name} are not valid JSON (${reason}). Send one JSON object.`,
      );
    }
    let parsed: ReturnType<typeof tool.input.safeParse>;
    try {
      parsed = tool.input.safeParse(json);
    } catch (error) {
      // A refinement or transform of the tool's own schema threw: the tool's bug, not the model's.
      return {
        ...invalid(call, `Tool ${call.name} failed with an internal error while checking its arguments.`),
        errorDetail: error instanceof Error ? (error.stack ?? error.message) : String(error),
      };
    }
    if (!parsed.success) {
      return invalid(call, `Invalid arguments for ${call.name}: ${formatIssues(parsed.error.issues)}`);
    }
    return { kind: "ready", call, tool, args: parsed.data };
  }

  /**
   * Runs a validated call under its timeout and the run's stop; never throws, except the
   * QuestionAsked a tool throws to ask the person (the turn pauses the run with it).
   */
  async execute(ready: ReadyCall<TContext>, options: ExecuteOptions): Promise<ToolOutcome> {
    const { tool, call } = ready;
    const started = performance.now();
    const timeoutMs = tool.timeoutMs ?? this.options.toolTimeoutMs;
    const maxResultChars = tool.maxResultChars ?? this.options.maxResultChars;
    // A call whose run is already stopped must not start at all.
    if (options.stop.aborted) return timed(abortedOutcome(tool.name), started);
    const stop = new CallStop(options.stop);
    try {
      const runOptions = new CallOptions(this.context, call.id, stop, options);
      // The tool runs a microtask later (a synchronous throw becomes a rejection), raced with the
      // call's stop; one promise for both instead of a stop promise, a race and a then.
      const value = await new Promise<unknown>((resolve, reject) => {
        stop.reject = reject;
        Promise.resolve()
          .then(() => {
            const result = tool.run(ready.args as never, runOptions);
            stop.watch(result, timeoutMs);
            return result;
          })
          .then(resolve, reject);
      });
      return timed(okOutcome(value, maxResultChars, tool.content !== false), started);
    } catch (error) {
      // A question for the person is no failure of the call: the turn pauses the run with it.
      if (error instanceof QuestionAsked && !stop.stopped) throw error;
      if (error instanceof ToolTimeout) {
        return timed(
          { status: "timeout", content: `Tool ${tool.name} timed out after ${timeoutMs} ms.` },
          started,
        );
      }
      if (stop.stopped && !(error instanceof ToolError)) return timed(abortedOutcome(tool.name), started);
      // The model's words come back verbatim, but no larger than any other result may be.
      if (error instanceof ToolError)
        return timed({ status: "error", content: truncate(error.message, maxResultChars) }, started);
      return timed(
        {
          status: "error",
          content: `Tool ${tool.name} failed with an internal error.`,
          errorDetail: error instanceof Error ? (error.stack ?? error.message) : String(error),
        },
        started,
      );
    } finally {
      stop.release();
    }
  }
}

/** `outcome` (a fresh literal, completed in place) with the time since `started`. */
function timed(outcome: Omit<ToolOutcome, "durationMs">, started: number): ToolOutcome {
  const done = outcome as ToolOutcome;
  done.durationMs = performance.now() - started;
  return done;
}

function tooLong(call: ToolCall, maxArgumentChars: number): string {
  return `Arguments for ${call.name} are ${call.arguments.length} characters; the limit is ${maxArgumentChars}. Send shorter arguments.`;
}

function invalid(call: ToolCall, content: string): InvalidCall {
  return { kind: "invalid", call, content };
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
