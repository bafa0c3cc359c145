import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { checkContext } from "../environment/context-check.js";
import { checkEnvironmentOptions, Environment, type EnvironmentOptions } from "../environment/environment.js";
import { startTimer } from "../environment/timer.js";
import { ConfigError } from "../errors.js";
import { parseHistory } from "../memory/message-schema.js";
import type { Message } from "../memory/messages.js";
import type { MemoryStrategy } from "../memory/strategy.js";
import type { Model, ToolChoice } from "../models/model.js";
import { resolveModel } from "../models/resolve.js";
import { type AgentToolOptions, agentAsTool, type SubAgent } from "../multi/as-tool.js";
import type { Store, StoredRun } from "../store/store.js";
import type { AgentTool, Tool } from "../tools/tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import type { ToolSource } from "../tools/tool-source.js";
import { type ApprovalHandler, decisionsFor } from "./approval.js";
import { Budget, checkLimits, type Limits } from "./budget.js";
import type { RecallOptions } from "./context-view.js";
import { EventChannel } from "./event-channel.js";
import type { AgentEvent } from "./events.js";
import { type LoopOutcome, type LoopSettings, runLoop } from "./loop.js";
import { checkLoopGuard, LoopGuard, type LoopGuardOptions } from "./loop-guard.js";
import { FINAL_RESULT_TOOL, finalResultTool, textNotAllowed } from "./output.js";
import { type AttachedRun, Persistence } from "./persistence.js";
import { PLAN_TOOL, type PlanOptions, planTool } from "./plan.js";
import type { ReflectOptions } from "./reflect.js";
import { makeEmitter, type RunState, RunTimeout } from "./run-state.js";
import { type RunUsage, UsageMeter } from "./usage.js";

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
  /** A `Model`, or `"provider:model"` resolved from the environment. */
  model: string | Model;
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
}

/** An agent whose run returns text, or the result of a terminal tool in its registry. */
export interface AgentConfigWithoutOutput<TContext, TOutput> extends AgentConfigBase<TContext> {
  output?: undefined;
  tools?: readonly AgentTool<NoInfer<TContext>>[] | ToolRegistry<NoInfer<TContext>, TOutput, boolean>;
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
}

/** Options of `agent.resume()`: the hidden context comes again from the caller, never from the store. */
export interface ResumeOptions<TContext>
  extends Pick<RunOptions<TContext>, "signal" | "onEvent" | "context" | "limits" | "onApproval"> {
  /** Ask the provider to stream (text deltas become events), as `stream()` does. */
  stream?: boolean;
  /** For a run paused for approval: ids of the waiting calls to run. Every waiting call must be decided. */
  approve?: readonly string[];
  /** For a run paused for approval: ids of the waiting calls to refuse; the model is told "Not approved by the user." */
  reject?: readonly string[];
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

/** A model in a loop with tools, hidden context, budgets and events: the GAME agent. */
export class Agent<TContext = undefined, TOutput = string> {
  readonly name: string;
  readonly model: Model;
  readonly registry: ToolRegistry<TContext, unknown, boolean>;
  readonly #config: AgentConfig<TContext, TOutput>;
  readonly #endTools: string[];
  readonly #unsubscribe: (() => void)[] = [];
  readonly #persistence: Persistence;

  constructor(config: AgentConfigWithOutput<TContext, TOutput>);
  constructor(config: AgentConfigWithoutOutput<TContext, TOutput>);
  constructor(config: AgentConfig<TContext, TOutput>) {
    this.#config = config;
    this.name = config.name ?? "agent";
    this.#persistence = new Persistence(
      {
        ...(config.store && { store: config.store }),
        ...(config.memory && { memory: config.memory }),
        ...(config.recall && { recall: config.recall }),
      },
      this.name,
    );
    this.model = resolveModel(config.model);
    checkLimits(config.limits ?? {});
    checkCostLimit(config.limits ?? {}, this.model);
    checkEnvironmentOptions({ ...config.environment }, "environment");
    if (config.loopGuard) checkLoopGuard(config.loopGuard);
    const registry = ToolRegistry.from<TContext>([]);
    const given = config.tools instanceof ToolRegistry ? config.tools.list() : (config.tools ?? []);
    for (const t of given) registry.register(t, { terminal: t.terminal });
    const terminal = registry.terminalTools().map((t) => t.name);
    if (config.output !== undefined) {
      if (terminal.length > 0) {
        throw new ConfigError(
          `Agent "${this.name}": "output" and terminal tools (${terminal.join(", ")}) both try to end the run. ` +
            "Use output (the run ends through final_result) or terminal tools, not both.",
        );
      }
      if (registry.has(FINAL_RESULT_TOOL)) {
        throw new ConfigError(
          `Agent "${this.name}": the tool name "${FINAL_RESULT_TOOL}" is reserved for "output"`,
        );
      }
      registry.register(finalResultTool(config.output) as AgentTool<TContext>, { terminal: true });
    }
    if (config.plan) {
      if (registry.has(PLAN_TOOL)) {
        throw new ConfigError(`Agent "${this.name}": the tool name "${PLAN_TOOL}" is reserved for "plan"`);
      }
      registry.register(planTool() as AgentTool<TContext>);
    }
    for (const t of registry.list()) {
      checkEnvironmentOptions(
        { timeoutMs: t.timeoutMs, maxResultChars: t.maxResultChars },
        `Tool "${t.name}"`,
      );
    }
    this.registry = registry;
    this.#endTools = registry.terminalTools().map((t) => t.name);
    checkContext(registry.list(), config.context);
    for (const source of config.toolSources ?? []) this.#follow(source);
  }

  /** Closes the agent's tool sources (MCP servers); the agent should not run afterwards. */
  async close(): Promise<void> {
    for (const stop of this.#unsubscribe.splice(0)) stop();
    await Promise.all((this.#config.toolSources ?? []).map((source) => source.close()));
  }

  #follow(source: ToolSource): void {
    let names: string[] = [];
    const sync = () => {
      for (const name of names) this.registry.unregister(name);
      names = [];
      for (const t of source.tools()) {
        if (this.registry.has(t.name)) {
          throw new ConfigError(
            `Tool "${t.name}" from "${source.name}" clashes with a tool of the same name`,
          );
        }
        this.registry.register(t as AgentTool<TContext>);
        names.push(t.name);
      }
    };
    sync();
    this.#unsubscribe.push(
      source.onChange(() => {
        try {
          sync();
        } catch (error) {
          process.emitWarning(`glassloop: tools of "${source.name}" not updated: ${String(error)}`);
        }
      }),
    );
  }

  /** This agent as a tool another agent can call (see `agentAsTool`). */
  asTool<TInput extends z.ZodObject = z.ZodObject<{ input: z.ZodString }>>(
    options: AgentToolOptions<TInput>,
  ): Tool<z.output<TInput>, unknown, TOutput> {
    return agentAsTool(this as SubAgent<TOutput>, options);
  }

  /** The store of sessions, checkpoints and notes: the configured one, or the default SQLite file. */
  get store(): Store {
    return this.#persistence.store;
  }

  /**
   * Continues a stored run whose process died (or that was paused) from its last checkpoint: no
   * message is duplicated and no finished tool call runs again. A run that ended is refused.
   */
  async resume(runId: string, options: ResumeOptions<TContext> = {}): Promise<RunResult<TOutput>> {
    const { stored, release } = await this.#persistence.claim(runId);
    try {
      const decisions = decisionsFor(stored.progress.pending, options.approve, options.reject);
      return await this.#start(
        stored.input,
        options,
        options.stream === true,
        options.onEvent,
        stored,
        decisions,
      );
    } finally {
      release();
    }
  }

  /** Runs the agent to the end and returns its typed output. */
  run(input: string, options: RunOptions<TContext> = {}): Promise<RunResult<TOutput>> {
    return this.#start(input, options, false, options.onEvent);
  }

  /** Runs the agent with streaming; yields every event, then `result` settles. */
  stream(input: string, options: RunOptions<TContext> = {}): AgentStream<TOutput> {
    const channel = new EventChannel<AgentEvent>();
    let started = false;
    const result = this.#start(input, options, true, (event) => {
      started = true;
      options.onEvent?.(event);
      channel.push(event);
    });
    // A run that started reports its failure in its events (error, run_end); one that could not
    // start (bad history, context or limits) has no events, so the iteration itself throws.
    const settled = result.then(
      (value) => {
        channel.close();
        return value;
      },
      (error: unknown) => {
        if (started) channel.close();
        else channel.fail(error);
        throw error;
      },
    );
    settled.catch(() => {});
    return { result: settled, [Symbol.asyncIterator]: () => channel[Symbol.asyncIterator]() };
  }

  async #start(
    input: string,
    options: RunOptions<TContext>,
    stream: boolean,
    listener: ((event: AgentEvent) => void) | undefined,
    resumed?: StoredRun,
    decisions?: Map<string, boolean>,
  ): Promise<RunResult<TOutput>> {
    if (typeof input !== "string") throw new ConfigError("The run's input must be a string");
    const config = this.#config;
    const context = "context" in options ? (options.context as TContext) : (config.context as TContext);
    if ("context" in options) checkContext(this.registry.list(), context);
    const runId = resumed?.runId ?? `run_${randomUUID()}`;
    const messages = resumed ? resumed.messages : this.#initialMessages(input, options.history);
    const meter = new UsageMeter(this.model.price, resumed?.usage);
    if (options.limits) checkLimits(options.limits, "options.limits");
    const limits = tighten(config.limits ?? {}, options.limits);
    checkCostLimit(limits, this.model);
    const controller = new AbortController();
    const onAbort = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    const cancelTimer =
      limits.timeoutMs !== undefined
        ? startTimer(limits.timeoutMs, () => controller.abort(new RunTimeout()))
        : undefined;
    const state: RunState<TContext> = {
      runId,
      model: this.model,
      environment: new Environment(this.registry, context, config.environment),
      budget: new Budget(limits, meter),
      meter,
      guard: config.loopGuard === false ? undefined : new LoopGuard(config.loopGuard),
      messages,
      signal: controller.signal,
      emit: makeEmitter(runId, listener),
    };
    let attached: AttachedRun | undefined;
    try {
      attached = await this.#persistence.attach(state as RunState<unknown>, {
        input,
        session: options.session,
        history: options.history,
        resumed,
        ...(decisions && { decisions }),
        ...(options.onApproval && { onApproval: options.onApproval }),
        rebuild: (history) => this.#initialMessages(input, history),
        loop: { endTools: this.#endTools, textNotAllowed: textNotAllowed(this.#endTools) },
      });
      const settings = { ...this.#settings(input, stream), ...attached.loop };
      let outcome: LoopOutcome;
      try {
        outcome = await runLoop(state as RunState<unknown>, settings);
      } catch (error) {
        await attached.failed(state as RunState<unknown>, error);
        throw error;
      }
      await attached.succeeded(state as RunState<unknown>, outcome);
      return {
        runId,
        output: outcome.output as TOutput,
        finishedBy: outcome.finishedBy,
        messages: state.messages,
        usage: meter.snapshot(),
      };
    } finally {
      attached?.release();
      cancelTimer?.();
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  #initialMessages(input: string, history: readonly Message[] | undefined): Message[] {
    const past = history === undefined ? [] : parseHistory(history);
    // The agent's current instructions replace whatever system prompt the history began with.
    const body = past[0]?.role === "system" ? past.slice(1) : past;
    const { instructions } = this.#config;
    const system: Message[] = instructions === undefined ? [] : [{ role: "system", content: instructions }];
    return [...system, ...body, { role: "user", content: input }];
  }

  #settings(input: string, stream: boolean): LoopSettings {
    const { instructions, modelSettings = {}, plan, reflect } = this.#config;
    return {
      ...(instructions !== undefined && { instructions }),
      input,
      tools: () => this.registry.specs(),
      endTools: this.#endTools,
      textNotAllowed: textNotAllowed(this.#endTools),
      stream,
      ...modelSettings,
      ...(plan && { plan: { reviseOnFailure: plan === true || plan.reviseOnFailure !== false } }),
      ...(reflect && { reflect }),
    };
  }
}

/** A dollar limit needs a price to count against: refuse it up front rather than never enforce it. */
function checkCostLimit(limits: Limits, model: Model): void {
  if (limits.maxCostUsd !== undefined && model.price === undefined) {
    throw new ConfigError(
      `limits.maxCostUsd is set but model "${model.id}" has no known price; give the model a price or drop the limit`,
    );
  }
}

/** Each limit of `base`, lowered to `extra`'s where `extra` is stricter. */
function tighten(base: Limits, extra: Limits | undefined): Limits {
  if (!extra) return base;
  const merged: Limits = { ...base };
  for (const key of Object.keys(extra) as (keyof Limits)[]) {
    const value = extra[key];
    if (value === undefined) continue;
    const current = merged[key];
    merged[key] = current === undefined ? value : Math.min(current, value);
  }
  return merged;
}
