import { z } from "zod";
import { RunError, ToolError } from "../core/errors.js";
import { once } from "../core/once.js";
import { limitsWithin } from "../loop/limits-check.js";
import type { Model } from "../models/model.js";
import { type Tool, type ToolModel, tool } from "../tools/tool.js";
import type { RunOptions, RunResult } from "./agent-config.js";

/** What `agentAsTool` needs of an agent (any `Agent` fits). */
export interface SubAgent<TOutput> {
  readonly model: Model;
  /** Its tools, searched for sub-agents of its own (their models need a price under `maxCostUsd` too). */
  readonly registry?: { list(): readonly Pick<Tool, "models">[] };
  run(input: string, options: RunOptions<never>): Promise<RunResult<TOutput>>;
}

/** How a sub-agent is offered to its parent. */
export interface AgentToolOptions<TInput extends z.ZodObject = z.ZodObject<{ input: z.ZodString }>> {
  name: string;
  description: string;
  /** The arguments the parent model sends; default `{ input: string }`. */
  input?: TInput;
  /** Turns the arguments into the sub-agent's task; default: the `input` field, or the arguments as JSON. */
  prompt?: (args: z.output<TInput>) => string;
}

// Built on first use, like every schema the root entry loads: import time stays zod-free.
const defaultInput = once(buildDefaultInput);
function buildDefaultInput() {
  return z.object({
    input: z
      .string()
      .describe("The complete task for the sub-agent: it sees nothing else of this conversation."),
  });
}

/**
 * An agent packaged as a tool: the parent calls it like any tool. The child runs inside the
 * parent's remaining budget, its usage rolls up into the parent, its events are nested under the
 * parent's call, the parent's abort reaches it, and its failure becomes that tool's error.
 */
export function agentAsTool<TOutput, TInput extends z.ZodObject>(
  child: SubAgent<TOutput>,
  options: AgentToolOptions<TInput>,
): Tool<z.output<TInput>, unknown, TOutput> {
  const input = (options.input ?? defaultInput()) as TInput;
  const prompt =
    options.prompt ??
    ((args: z.output<TInput>) => {
      const record = args as Record<string, unknown>;
      return typeof record.input === "string" && Object.keys(record).length === 1
        ? record.input
        : JSON.stringify(args);
    });
  const made = tool({
    name: options.name,
    description: options.description,
    input,
    // The child's output is what its model chose: sent as JSON, never read as image or file
    // content, so a sub-agent cannot name a URL for the parent's provider to fetch.
    content: false,
    run: async (args, run): Promise<TOutput> => {
      try {
        const result = await child.run(prompt(args), {
          signal: run.signal,
          onEvent: run.forward,
          // Dollars included: a child without a price is refused by the same rule as any agent.
          limits: limitsWithin(run.remaining),
        });
        run.addUsage(result.usage);
        return result.output;
      } catch (error) {
        if (!(error instanceof RunError)) throw error;
        run.addUsage(error.usage);
        throw new ToolError(`Sub-agent "${options.name}" failed (${error.code}): ${error.message}`, {
          cause: error,
        });
      }
    },
  });
  return Object.freeze({ ...made, models: modelsOf(child as SubAgent<unknown>, options.name) });
}

/** The child's model and those of its own sub-agents, for the parent's price check. */
function modelsOf(child: SubAgent<unknown>, name: string): ToolModel[] {
  const models: ToolModel[] = [{ model: child.model, path: [name] }];
  for (const t of child.registry?.list() ?? [])
    for (const inner of t.models ?? []) models.push({ model: inner.model, path: [name, ...inner.path] });
  return models;
}
