import type { z } from "zod";
import { ConfigError } from "../core/errors.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { RemainingBudget } from "../core/vocabulary/limits.js";
import type { Message } from "../core/vocabulary/messages.js";
import type { PersonAnswer, PersonQuestion } from "../core/vocabulary/questions.js";
import type { RunUsage } from "../core/vocabulary/usage.js";
import type { JsonSchema, Model, ToolSpec } from "../models/model.js";
import { toolParameters } from "./json-schema.js";

/**
 * How a tool declares the hidden context it needs: a class (checked with `instanceof`) or a zod
 * schema (for plain objects). The context is injected by the environment and never shown to the model.
 */
export type ContextSpec<TContext> = (abstract new (...args: never[]) => TContext) | z.ZodType<TContext>;

/** What a tool's `run` receives besides its arguments. */
export interface ToolRunOptions<TContext> {
  /** The agent's hidden context (DB handles, keys, sessions); the model never sees it. */
  context: TContext;
  /** Fires when the run is aborted or this call times out; pass it to anything slow. */
  signal: AbortSignal;
  toolCallId: string;
  /** The transcript so far (read-only). */
  messages: readonly Message[];
  /** A snapshot of the run's usage when the call started. */
  usage: RunUsage;
  /** What is left of the run's limits: the ceiling for any sub-agent this tool runs. */
  remaining: RemainingBudget;
  /** Rolls a sub-run's usage into this run (for agents used as tools). */
  addUsage(usage: RunUsage): void;
  /** Forwards a sub-run's event into this run's stream, nested under this call. */
  forward(event: AgentEvent): void;
  /**
   * The person's answer to `question` when this call asked exactly that before and the run was
   * resumed with the answer (each recorded answer is given once); undefined otherwise, and then a
   * tool that needs it throws `QuestionAsked` to pause the run and ask.
   */
  answered?(question: PersonQuestion): PersonAnswer | undefined;
}

/** What `tool()` takes: one zod schema is the source of the JSON Schema and of `run`'s types. */
export interface ToolDefinition<TInput extends z.ZodType, TContext, TResult> {
  /** Matches `^[a-zA-Z0-9_-]{1,64}$`, the rule every major provider enforces. */
  name: string;
  description: string;
  input: TInput;
  context?: ContextSpec<TContext>;
  run: (args: z.output<TInput>, options: ToolRunOptions<TContext>) => TResult | Promise<TResult>;
  /** Overrides the agent's tool timeout (default 30 s). */
  timeoutMs?: number;
  /** Overrides the agent's result size limit (default 20,000 characters). */
  maxResultChars?: number;
  /** Safe to run twice: a call interrupted by a crash may be re-run on resume. */
  idempotent?: boolean;
  /**
   * Whether a returned `{ type: "image" | "file", ... }` value (or a list of such blocks) is sent
   * to the model as image and file content (default true). False sends every result as JSON text:
   * for results another model shaped (an agent used as a tool), which must not choose a URL the
   * provider will fetch.
   */
  content?: boolean;
  /**
   * A person must approve each call (or those for which the function says so) before it runs;
   * the run pauses until `agent.resume(runId, { approve, reject })`, or asks the run's `onApproval`.
   */
  needsApproval?: boolean | ((args: z.output<TInput>) => boolean | Promise<boolean>);
}

/** A model a tool runs (an agent used as a tool): a dollar limit on the calling run needs its price. */
export interface ToolModel {
  model: Model;
  /** Tool names from the calling agent down to the agent that calls the model. */
  path: readonly string[];
}

/** A tool as the registry and the loop use it. Create with `tool()`. */
export interface Tool<TArgs = unknown, TContext = unknown, TResult = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType;
  /** The JSON Schema sent to the model, derived from `input` once. */
  readonly parameters: JsonSchema;
  /** The declared hidden context (its type is tracked by `~context`). */
  readonly context?: ContextSpec<unknown>;
  /** Whether calling this tool ends the run; set per agent by `ToolRegistry.register`. */
  readonly terminal: boolean;
  readonly timeoutMs?: number;
  readonly maxResultChars?: number;
  readonly idempotent: boolean;
  /** False when the tool's results are always sent as JSON text, never as image or file content. */
  readonly content?: false;
  /** Whether a call needs a person's approval before it runs (see `ToolDefinition.needsApproval`). */
  readonly needsApproval?: boolean | ((args: TArgs) => boolean | Promise<boolean>);
  /** Models this tool runs (set by `agentAsTool`), checked for a price under `maxCostUsd`. */
  readonly models?: readonly ToolModel[];
  // Method syntax on purpose: arguments are checked bivariantly so any tool fits a tool list,
  // while the context is checked contravariantly through `~context` below.
  run(args: TArgs, options: ToolRunOptions<TContext>): TResult | Promise<TResult>;
  /** Type-level only: makes a tool that needs context `C` unusable by an agent whose context is not a `C`. */
  readonly "~context"?: (context: TContext) => void;
}

/** Any tool whose context requirement an agent with context `TContext` satisfies. */
export type AgentTool<TContext> = Tool<never, TContext, unknown>;

/** The context type a tool requires. */
export type ToolContextOf<T> = T extends { "~context"?: (context: infer C) => void } ? C : unknown;

/** The result type of a tool's `run`. */
export type ToolResultOf<T> = T extends Tool<never, never, infer R> ? Awaited<R> : unknown;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Throws a ConfigError unless `name` is a valid tool name. */
export function checkToolName(name: string): void {
  if (!NAME.test(name)) {
    throw new ConfigError(
      `Invalid tool name ${JSON.stringify(name)}: use 1-64 letters, digits, "_" or "-" (^[a-zA-Z0-9_-]{1,64}$)`,
    );
  }
}

/**
 * The keys `tool()` reads; `satisfies` keeps the list in step with `ToolDefinition`. Any other key
 * is refused: a JavaScript caller (no type checks) would otherwise lose it silently, e.g. a
 * `terminal: true` that never made the tool end the run.
 */
const DEFINITION_KEYS = {
  name: true,
  description: true,
  input: true,
  context: true,
  run: true,
  timeoutMs: true,
  maxResultChars: true,
  idempotent: true,
  content: true,
  needsApproval: true,
} satisfies Record<keyof ToolDefinition<z.ZodType, unknown, unknown>, true>;

/**
 * The fields of a made `Tool` that `tool()` derives itself: a definition spread from an existing
 * tool (`tool({ ...echo, input })`) carries them, and they are rebuilt rather than refused.
 */
const DERIVED_KEYS = {
  parameters: true,
  terminal: true,
  models: true,
  "~context": true,
} satisfies Record<Exclude<keyof Tool, keyof ToolDefinition<z.ZodType, unknown, unknown>>, true>;

/** Throws a ConfigError naming the first key of `definition` that `tool()` would drop. */
function checkDefinitionKeys(definition: object, name: string): void {
  for (const [key, value] of Object.entries(definition)) {
    if (key === "terminal" && value) {
      throw new ConfigError(
        `Tool "${name}": tool() takes no "terminal"; a tool ends the run when an agent's registry says so: ` +
          `new ToolRegistry().register(${name}, { terminal: true }), passed as the agent's tools`,
      );
    }
    if (Object.hasOwn(DEFINITION_KEYS, key) || Object.hasOwn(DERIVED_KEYS, key)) continue;
    throw new ConfigError(
      `Tool "${name}": tool() takes no ${JSON.stringify(key)} (it takes ${Object.keys(DEFINITION_KEYS).join(", ")})`,
    );
  }
}

/** Defines a tool; `run`'s argument type is inferred from the zod `input` schema. */
export function tool<TInput extends z.ZodType, TResult, TContext = unknown>(
  definition: ToolDefinition<TInput, TContext, TResult>,
): Tool<z.output<TInput>, TContext, Awaited<TResult>> {
  checkToolName(definition.name);
  checkDefinitionKeys(definition, definition.name);
  if (typeof definition.run !== "function")
    throw new ConfigError(`Tool "${definition.name}": run must be a function`);
  const parameters = toolParameters(definition.input, definition.name);
  const run = definition.run as Tool<z.output<TInput>, TContext, Awaited<TResult>>["run"];
  return Object.freeze({
    name: definition.name,
    description: definition.description,
    input: definition.input,
    parameters,
    ...(definition.context !== undefined && { context: definition.context }),
    terminal: false,
    ...(definition.timeoutMs !== undefined && { timeoutMs: definition.timeoutMs }),
    ...(definition.maxResultChars !== undefined && { maxResultChars: definition.maxResultChars }),
    idempotent: definition.idempotent ?? false,
    ...(definition.content === false && { content: false as const }),
    ...(definition.needsApproval !== undefined && { needsApproval: definition.needsApproval }),
    run,
  });
}

/** The part of a tool the model sees. */
export function toolSpec(t: Pick<Tool, "name" | "description" | "parameters">): ToolSpec {
  return { name: t.name, description: t.description, parameters: t.parameters };
}
