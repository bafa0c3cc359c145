import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { ConfigError } from "../core/errors.js";
import type { RecordedAnswers } from "../core/questions.js";
import { RunStop } from "../core/stop.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { Limits } from "../core/vocabulary/limits.js";
import { lastUserText } from "../core/vocabulary/messages.js";
import { type ApprovalDecision, decisionsFor } from "../features/approval/approval.js";
import { Persistence } from "../features/durability/persistence.js";
import { checkResumedTools, recordedAnswers } from "../features/durability/resume.js";
import type { Guardrails } from "../features/guardrails/guardrail.js";
import { checkGuardrails } from "../features/guardrails/hooks.js";
import { checkLoopGuard } from "../features/loop-guard.js";
import { checkReflect } from "../features/reflect.js";
import type { RunState } from "../loop/hooks.js";
import { checkCostLimit, checkLimits, tightenLimits } from "../loop/limits-check.js";
import { type LoopSettings, runLoop } from "../loop/loop.js";
import { textNotAllowed } from "../loop/output.js";
import { UsageMeter } from "../loop/usage.js";
import type { Model } from "../models/model.js";
import { resolveModel } from "../providers/resolve.js";
import type { Store } from "../store/store.js";
import type { Tool } from "../tools/tool.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import type {
  AgentConfig,
  AgentConfigWithOutput,
  AgentConfigWithoutOutput,
  AgentStream,
  ContinueOptions,
  ResumeOptions,
  RunOptions,
  RunResult,
} from "./agent-config.js";
import {
  agentRegistry,
  checkContext,
  checkEnvironmentOptions,
  followToolSource,
  otherModels,
} from "./agent-tools.js";
import { type AgentToolOptions, agentAsTool, type SubAgent } from "./as-tool.js";
import { checkContinue } from "./continue-check.js";
import { EventChannel } from "./event-channel.js";
import { attachFeatures, initialMessages, type StartHow, startRun } from "./run-start.js";

/** A model in a loop with tools, hidden context, budgets and events: goal (instructions), actions (tools), memory (history) and environment. */
export class Agent<TContext = undefined, TOutput = string> {
  readonly name: string;
  readonly model: Model;
  readonly registry: ToolRegistry<TContext, unknown, boolean>;
  readonly #config: AgentConfig<TContext, TOutput>;
  readonly #endTools: string[];
  /** Built once: a run that must end through a tool gets it as feedback to a text answer. */
  readonly #textNotAllowed: string;
  readonly #unsubscribe: (() => void)[] = [];
  readonly #persistence: Persistence;

  constructor(config: AgentConfigWithOutput<TContext, TOutput>);
  constructor(config: AgentConfigWithoutOutput<TContext, TOutput>);
  constructor(config: AgentConfig<TContext, TOutput>) {
    this.#config = config;
    this.name = config.name ?? "agent";
    this.#persistence = new Persistence(config, this.name);
    this.model = resolveModel(config.model);
    checkLimits(config.limits ?? {});
    checkEnvironmentOptions({ ...config.environment }, "environment");
    if (config.loopGuard) checkLoopGuard(config.loopGuard);
    if (config.reflect) checkReflect(config.reflect);
    if (config.guardrails) checkGuardrails(config.guardrails as Guardrails);
    const registry = agentRegistry(this.name, config);
    this.registry = registry;
    this.#endTools = registry.terminalTools().map((t) => t.name);
    this.#textNotAllowed = textNotAllowed(this.#endTools);
    checkContext(registry.list(), config.context);
    this.#limits({});
    for (const source of config.toolSources ?? []) this.#unsubscribe.push(followToolSource(registry, source));
  }

  /** The schema of the agent's typed output (`output` in its config), or undefined for text. */
  get outputSchema(): z.ZodType<TOutput> | undefined {
    return this.#config.output;
  }

  /** The agent's instructions (its system prompt), as configured. */
  get instructions(): string | undefined {
    return this.#config.instructions;
  }

  /** Closes the agent's tool sources (MCP servers); the agent should not run afterwards. */
  async close(): Promise<void> {
    for (const stop of this.#unsubscribe.splice(0)) stop();
    await Promise.all((this.#config.toolSources ?? []).map((source) => source.close()));
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
    let decisions: ApprovalDecision[] = [];
    let answers: RecordedAnswers | undefined;
    // Everything that can refuse the resume is checked on the run as read, before it is claimed,
    // so a refused resume leaves the run exactly as it was.
    const { stored, release } = await this.#persistence.claim(runId, (read) => {
      checkResumedTools(
        read,
        this.registry.list().map((t) => t.name),
        options.allowNewTools === true,
      );
      if ("context" in options) checkContext(this.registry.list(), options.context);
      this.#limits(options);
      decisions = decisionsFor(
        runId,
        read.progress.pending,
        options.approve,
        options.reject,
        options.onApproval !== undefined,
      );
      answers = recordedAnswers(read.progress.pending, options.answers);
    });
    try {
      // The claim succeeded only if the run was still as read, so the decisions fit the claimed run.
      return await this.#start(stored.input, options, {
        stream: options.stream === true,
        listener: options.onEvent,
        resumed: stored,
        decisions,
        answers,
      });
    } finally {
      release();
    }
  }

  /**
   * Runs the agent to the end and returns its typed output. `input` is the new user message; `null`
   * sends none and continues the conversation of `history` or `session` where it stands (after
   * tool results you supplied, or a user message nobody answered yet).
   */
  run(input: string, options?: RunOptions<TContext>): Promise<RunResult<TOutput>>;
  run(input: null, options: ContinueOptions<TContext>): Promise<RunResult<TOutput>>;
  run(input: string | null, options: RunOptions<TContext> = {}): Promise<RunResult<TOutput>> {
    return this.#start(input, options, { stream: false, listener: options.onEvent });
  }

  /**
   * Runs the agent with streaming; yields every event, then `result` settles. Leaving the
   * iteration early (`break`, a throw in the loop body) aborts the run.
   */
  stream(input: string, options?: RunOptions<TContext>): AgentStream<TOutput>;
  stream(input: null, options: ContinueOptions<TContext>): AgentStream<TOutput>;
  stream(input: string | null, options: RunOptions<TContext> = {}): AgentStream<TOutput> {
    // The run's stop, made here so that the reader leaving fires it (the caller's signal and the
    // timeout are wired to it when the run starts).
    const stop = new RunStop();
    const channel = new EventChannel<AgentEvent>(() =>
      stop.abort(new Error("the caller stopped reading the stream")),
    );
    let started = false;
    const listener = (event: AgentEvent) => {
      started = true;
      options.onEvent?.(event);
      channel.push(event);
    };
    const result = this.#start(input, options, { stream: true, listener, stop });
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
    input: string | null,
    options: RunOptions<TContext>,
    how: StartHow,
  ): Promise<RunResult<TOutput>> {
    const { stream, listener, resumed, decisions, answers } = how;
    if (input === null) checkContinue(options);
    else if (typeof input !== "string")
      throw new ConfigError("The run's input must be a string, or null to continue without a new message");
    const config = this.#config;
    const context = "context" in options ? (options.context as TContext) : (config.context as TContext);
    if ("context" in options) checkContext(this.registry.list(), context);
    if (options.runId !== undefined && (typeof options.runId !== "string" || options.runId === ""))
      throw new ConfigError("The run option runId must be a non-empty string");
    const runId = resumed?.runId ?? options.runId ?? `run_${randomUUID()}`;
    const messages = resumed
      ? resumed.messages
      : initialMessages(config.instructions, input, options.history, options);
    const meter = new UsageMeter(this.model.price, resumed?.usage);
    const limits = this.#limits(options);
    const { state, finish } = startRun<TContext>({
      runId,
      model: this.model,
      registry: this.registry,
      context,
      environment: config.environment,
      limits,
      meter,
      messages,
      signal: options.signal,
      ...(how.stop && { stop: how.stop }),
      listener,
    });
    if (answers) state.answers = answers;
    let release: (() => void) | undefined;
    try {
      release = await attachFeatures(state as RunState<unknown>, this.#persistence, config, {
        input,
        session: options.session,
        history: options.history,
        resumed,
        decisions,
        onApproval: options.onApproval,
        hooks: options.hooks,
        rebuild: (history) => initialMessages(config.instructions, input, history, options),
        tools: {
          names: this.registry.list().map((t) => t.name),
          ...(config.toolSetup !== undefined && { setup: config.toolSetup }),
        },
      });
      const outcome = await runLoop(
        state as RunState<unknown>,
        this.#settings(input ?? lastUserText(state.messages), stream, resumed !== undefined, input === null),
      );
      return {
        runId,
        output: outcome.output as TOutput,
        finishedBy: outcome.finishedBy,
        messages: state.messages,
        usage: meter.snapshot(),
      };
    } finally {
      release?.();
      finish();
    }
  }

  /**
   * A run's limits: the agent's, tightened by the run's own (checked); a cost limit needs a price
   * for every model the run may call.
   */
  #limits(options: { limits?: Limits | undefined }): Limits {
    if (options.limits) checkLimits(options.limits, "options.limits");
    const { limits: own = {}, reflect, guardrails } = this.#config;
    const limits = tightenLimits(own, options.limits);
    checkCostLimit(limits, this.model, () =>
      otherModels(this.registry, reflect, guardrails as Guardrails | undefined),
    );
    return limits;
  }

  #settings(input: string, stream: boolean, resumed: boolean, continued: boolean): LoopSettings {
    const { instructions, modelSettings = {} } = this.#config;
    return {
      agent: this.name,
      ...(instructions !== undefined && { instructions }),
      input,
      tools: () => this.registry.specs(),
      endTools: this.#endTools,
      textNotAllowed: this.#textNotAllowed,
      stream,
      ...modelSettings,
      ...(resumed && { resumed }),
      ...(continued && { continued }),
    };
  }
}
