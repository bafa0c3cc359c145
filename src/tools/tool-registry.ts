import { ConfigError } from "../core/errors.js";
import { packedMap } from "../core/packed-map.js";
import type { ToolSpec } from "../models/model.js";
import { type AgentTool, checkToolName, type ToolContextOf, type ToolResultOf, toolSpec } from "./tool.js";

/** How an agent uses a registered tool. */
export interface RegisterOptions {
  /** Calling the tool ends the run; its return value becomes the run's output. */
  terminal?: boolean;
}

/**
 * The tools one agent may call. Registering copies the tool, so the same tool can be terminal
 * here and plain elsewhere. Chain `register` calls to keep the types: the registry tracks the
 * context its tools need (`TContext`) and the output a terminal tool produces (`TOutput`).
 */
export class ToolRegistry<TContext = unknown, TOutput = string, THasTerminal extends boolean = false> {
  readonly #tools = new Map<string, AgentTool<TContext>>();
  /** Type-level only: see `Tool["~context"]`. */
  declare readonly "~context"?: (context: TContext) => void;
  /** Type-level only: the output of a run that this registry's terminal tools end. */
  declare readonly "~output"?: TOutput;

  /** Builds a registry from plain (non-terminal) tools. */
  static from<TContext>(tools: readonly AgentTool<TContext>[]): ToolRegistry<TContext> {
    const registry = new ToolRegistry<TContext>();
    for (const t of tools) registry.register(t, { terminal: t.terminal });
    return registry;
  }

  register<T extends AgentTool<never>>(
    tool: T,
    options: { terminal: true },
  ): ToolRegistry<
    TContext & ToolContextOf<T>,
    THasTerminal extends true ? TOutput | ToolResultOf<T> : ToolResultOf<T>,
    true
  >;
  register<T extends AgentTool<never>>(
    tool: T,
    options?: RegisterOptions,
  ): ToolRegistry<TContext & ToolContextOf<T>, TOutput, THasTerminal>;
  register(tool: AgentTool<never>, options: RegisterOptions = {}): unknown {
    checkToolName(tool.name);
    if (this.#tools.has(tool.name)) {
      throw new ConfigError(`Duplicate tool name "${tool.name}": a registry holds one tool per name`);
    }
    const copy = Object.freeze({ ...tool, terminal: options.terminal ?? false }) as AgentTool<TContext>;
    this.#tools.set(tool.name, copy);
    return this;
  }

  /** Removes a tool (a tool source whose server dropped it); unknown names are ignored. */
  unregister(name: string): void {
    this.#tools.delete(name);
  }

  get(name: string): AgentTool<TContext> | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The tools in registration order. */
  list(): AgentTool<TContext>[] {
    return [...this.#tools.values()];
  }

  /** The tools that end the run when called. */
  terminalTools(): AgentTool<TContext>[] {
    return this.list().filter((t) => t.terminal);
  }

  /** What the model is told about the tools, in registration order. */
  specs(): ToolSpec[] {
    return packedMap(this.list(), (t) => toolSpec(t));
  }

  get size(): number {
    return this.#tools.size;
  }
}
