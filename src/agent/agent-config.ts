import type { z } from "zod";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { Limits } from "../core/vocabulary/limits.js";
import type { FilePart, ImagePart, Message } from "../core/vocabulary/messages.js";
import type { PersonAnswer } from "../core/vocabulary/questions.js";
import type { RunUsage } from "../core/vocabulary/usage.js";
import type { ApprovalHandler } from "../features/approval/approval.js";
import type { RecallOptions } from "../features/context-view.js";
import type { Guardrails } from "../features/guardrails/guardrail.js";
import type { LoopGuardOptions } from "../features/loop-guard.js";
import type { PlanOptions } from "../features/plan.js";
import type { ReflectOptions } from "../features/reflect.js";
import type { EnvironmentOptions } from "../loop/environment/environment.js";
import type { RunHooks } from "../loop/hooks.js";
import type { MemoryStrategy } from "../memory/strategy.js";
import type { Model, ToolChoice } from "../models/model.js";
import type { Store } from "../store/store.js";
import type { AgentTool } from "../tools/tool.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import type { ToolSource } from "../tools/tool-source.js";

/** Provider-neutral generation settings sent with every request. */
export interface ModelSettings {
  temperature?: number;
  maxOutputTokens?: number;
  toolChoice?: ToolChoice;
}

interface AgentConfigBase<TContext> {
  /** A name for events and traces. */
  name?: string;
  /** The goal: the system prompt. */
  instructions?: string;
  /**
   * A `Model`, or `"provider:model"` resolved from the environment, or an array of them: a fallback
   * chain tried in order (see `fallback()` for its rules and options).
   */
  model: string | Model | readonly (string | Model)[];
  /** Hidden context injected into tools that declare one; checked against them here. */
  context?: TContext;
  limits?: Limits;
  /** Tool timeouts, argument and result size limits, concurrency. */
  environment?: EnvironmentOptions;
  /** The guard against repeated identical calls; `false` turns it off. */
  loopGuard?: LoopGuardOptions | false;
  modelSettings?: ModelSettings;
  /** Planning (off by default): the model writes a plan first and revises it when a step fails. */
  plan?: boolean | PlanOptions;
  /** Reflection (off by default): an evaluator accepts the final answer or sends the agent back. */
  reflect?: ReflectOptions;
  /**
   * How this agent's tools were built, as plain JSON (never a secret): stored with each run beside
   * the tool names, so whoever resumes the run can rebuild the same tools (the CLI keeps its
   * `--tools` groups and their options here).
   */
  toolSetup?: unknown;
  /** Tools from outside (MCP servers): followed when they change, closed by `agent.close()`. */
  toolSources?: readonly ToolSource[];
  /**
   * Where sessions, run checkpoints and notes live (e.g. `new SqliteStore()`). With a store every
   * run is durable and can be resumed; without one, runs with `session` use the default SQLite file.
   */
  store?: Store;
  /** What the model sees of a long transcript: `WindowMemory`, `SummaryMemory`, or your own strategy. */
  memory?: MemoryStrategy;
  /** Automatic recall: notes from long-term memory matching the input are added to the instructions. */
  recall?: RecallOptions;
}

/** An agent whose run returns an object validated by `output` (through the `final_result` tool). */
export interface AgentConfigWithOutput<TContext, TOutput> extends AgentConfigBase<TContext> {
  output: z.ZodType<TOutput>;
  tools?: readonly AgentTool<NoInfer<TContext>>[] | ToolRegistry<NoInfer<TContext>, string, false>;
  /** Checks on the input, the typed output and each tool call: allow, reject (the model corrects), or stop the run. */
  guardrails?: Guardrails<NoInfer<TContext>, NoInfer<TOutput>>;
}

/** An agent whose run returns text, or the result of a terminal tool in its registry. */
export interface AgentConfigWithoutOutput<TContext, TOutput> extends AgentConfigBase<TContext> {
  output?: undefined;
  tools?: readonly AgentTool<NoInfer<TContext>>[] | ToolRegistry<NoInfer<TContext>, TOutput, boolean>;
  /** Checks on the input, the final answer and each tool call: allow, reject (the model corrects), or stop the run. */
  guardrails?: Guardrails<NoInfer<TContext>, NoInfer<TOutput>>;
}

/** Everything an agent is made of. */
export type AgentConfig<TContext, TOutput> =
  | AgentConfigWithOutput<TContext, TOutput>
  | AgentConfigWithoutOutput<TContext, TOutput>;

/** Options of one run. */
export interface RunOptions<TContext> {
  /** Aborting ends the run promptly with a RunAbortedError; calls in flight get "aborted" results. */
  signal?: AbortSignal;
  /** Called with every event, in order. */
  onEvent?: (event: AgentEvent) => void;
  /** An earlier `result.messages` to continue from. */
  history?: readonly Message[];
  /** Images sent with the input (checked: type, size, url). */
  images?: readonly ImagePart[];
  /** Documents (PDFs) sent with the input, after the images (checked: type, size, base64, url). */
  files?: readonly FilePart[];
  /** Replaces the agent's context for this run (checked like the agent's). */
  context?: TContext;
  /** Extra ceilings for this run; each is combined with the agent's own by taking the lower. */
  limits?: Limits;
  /** A conversation kept in the store: its history is loaded, and this turn saved, atomically. */
  session?: string;
  /**
   * Decides calls of tools with `needsApproval` in this process (a prompt, a UI). Without it such
   * a call pauses the run (stored, status `awaiting_approval`) until `agent.resume(runId, { approve, reject })`.
   */
  onApproval?: ApprovalHandler;
  /** The run's id instead of a random one: a durable engine's workflow id (`glassloop/scale`). */
  runId?: string;
  /** A durable engine's hooks (`glassloop/scale`'s DBOS steps), outermost around every call of the run. */
  hooks?: RunHooks;
}

/**
 * Options of a run that continues a conversation without a new user message (`agent.run(null,
 * options)`): the transcript comes from `history` or from `session`, and must end where the model
 * speaks next (a user message, tool results, or tool calls still open, which are closed first).
 * Images and files ride on a new user message, so a continued run takes none.
 */
export type ContinueOptions<TContext> = Omit<
  RunOptions<TContext>,
  "history" | "session" | "images" | "files"
> &
  ({ history: readonly Message[]; session?: never } | { session: string; history?: never });

/** Options of `agent.resume()`: the hidden context comes again from the caller, never from the store. */
export interface ResumeOptions<TContext>
  extends Pick<RunOptions<TContext>, "signal" | "onEvent" | "context" | "limits" | "onApproval"> {
  /** Ask the provider to stream (text deltas become events), as `stream()` does. */
  stream?: boolean;
  /**
   * For a run paused for approval: ids of the waiting calls to run. Every waiting call must be
   * decided here or in `reject`, unless `onApproval` is given: it decides the calls left out.
   */
  approve?: readonly string[];
  /** For a run paused for approval: ids of the waiting calls to refuse; the model is told "Not approved by the user." */
  reject?: readonly string[];
  /**
   * For a run paused on a tool's question (`InputRequiredError`): the person's answer for each
   * waiting call, checked against the form asked for. The call runs again, and when it asks the
   * same question (same asker, text and form) it gets this answer; a changed question pauses again.
   */
  answers?: readonly { toolCallId: string; answer: PersonAnswer }[];
  /**
   * Resume even though this agent offers tools the run was not started with (by default that is
   * a ConfigError naming them: a resume must not widen what the model may do).
   */
  allowNewTools?: boolean;
}

/** What a successful run returns. */
export interface RunResult<TOutput> {
  runId: string;
  /** Text, the `output` object, or a terminal tool's return value. */
  output: TOutput;
  /** `"text"`, or the name of the tool that ended the run (`final_result` for `output`). */
  finishedBy: string;
  /** The whole transcript, plain JSON; pass it back as `history` to continue. */
  messages: Message[];
  usage: RunUsage;
}

/** A run in progress: iterate its events; `result` settles when it ends. */
export interface AgentStream<TOutput> extends AsyncIterable<AgentEvent> {
  readonly result: Promise<RunResult<TOutput>>;
}
