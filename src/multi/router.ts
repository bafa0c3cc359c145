import { z } from "zod";
import { Agent, type RunOptions, type RunResult } from "../agent/agent.js";
import type { RunUsage } from "../agent/usage.js";
import { ConfigError } from "../errors.js";
import type { Message } from "../memory/messages.js";
import type { Model } from "../models/model.js";
import { tool } from "../tools/tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";

/** What a specialist receives of the conversation: all of it, only the latest user input, or your choice. */
export type HandoffHistory = "full" | "input" | ((conversation: Message[]) => Message[]);

/** A specialist the router can hand the conversation to. */
export interface Specialist<TOutput> {
  /** One line the router reads to choose. */
  description: string;
  agent: Pick<Agent<undefined, TOutput>, "run">;
}

/** How a router is made. */
export interface RouterConfig<TNames extends string, TOutput> {
  model: Model;
  instructions?: string;
  specialists: Record<TNames, Specialist<TOutput>>;
  /** Default "full". */
  history?: HandoffHistory;
}

/** A routed run: who answered, their result, and the usage of both runs together. */
export interface RoutedResult<TNames extends string, TOutput> extends RunResult<TOutput> {
  /** The specialist that answered. */
  agent: TNames;
  /** The router's own transcript (its choice and why). */
  routerMessages: Message[];
}

const reason = z.object({
  reason: z.string().describe("One sentence: why this specialist fits.").optional(),
});

/**
 * A router agent that hands the conversation to one of several specialists (seed 001's split of
 * one agent with many tools into specialists). The choice is a tool call `transfer_to_<name>`,
 * visible in the router's events like any other call; the specialist's run follows.
 */
export class Router<TNames extends string, TOutput = string> {
  readonly #router: Agent<undefined, TNames>;
  readonly #config: RouterConfig<TNames, TOutput>;

  constructor(config: RouterConfig<TNames, TOutput>) {
    const names = Object.keys(config.specialists) as TNames[];
    if (names.length === 0) throw new ConfigError("A Router needs at least one specialist");
    let registry = new ToolRegistry<unknown, TNames, boolean>();
    for (const name of names) {
      const handoff = tool({
        name: `transfer_to_${name}`,
        description: `Hand the conversation to ${name}: ${config.specialists[name].description}`,
        input: reason,
        run: () => name,
      });
      registry = registry.register(handoff, { terminal: true }) as ToolRegistry<unknown, TNames, boolean>;
    }
    this.#config = config;
    this.#router = new Agent<undefined, TNames>({
      name: "router",
      model: config.model,
      instructions:
        config.instructions ??
        "You route each request to exactly one specialist. Call the transfer tool of the specialist that fits best; do not answer yourself.",
      tools: registry,
    });
  }

  /** Routes `input` and runs the chosen specialist. */
  async run(
    input: string,
    options: Omit<RunOptions<undefined>, "context"> = {},
  ): Promise<RoutedResult<TNames, TOutput>> {
    const routed = await this.#router.run(input, options);
    const name = routed.output;
    const specialist = this.#config.specialists[name];
    const conversation: Message[] = [...(options.history ?? []), { role: "user", content: input }];
    const history = selectHistory(this.#config.history ?? "full", conversation);
    const last = history.at(-1);
    const task = last?.role === "user" ? last.content : input;
    const result = await specialist.agent.run(task, {
      ...options,
      history: last?.role === "user" ? history.slice(0, -1) : history,
    });
    return {
      ...result,
      agent: name,
      routerMessages: routed.messages,
      usage: sumUsage(routed.usage, result.usage),
    };
  }
}

function selectHistory(history: HandoffHistory, conversation: Message[]): Message[] {
  if (history === "full") return conversation.filter((m) => m.role !== "system");
  if (history === "input") return conversation.slice(-1);
  return history(conversation);
}

function sumUsage(a: RunUsage, b: RunUsage): RunUsage {
  const cost =
    a.costUsd === undefined && b.costUsd === undefined ? undefined : (a.costUsd ?? 0) + (b.costUsd ?? 0);
  return {
    requests: a.requests + b.requests,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    ...optionalSum("cacheWriteInputTokens", a, b),
    ...optionalSum("reasoningTokens", a, b),
    toolCalls: a.toolCalls + b.toolCalls,
    durationMs: a.durationMs + b.durationMs,
    ...(cost !== undefined && { costUsd: cost }),
    steps: [...a.steps, ...b.steps.map((s) => ({ ...s, step: s.step + a.steps.length }))],
  };
}

/** `{ key: a + b }` when either usage has the optional count, else nothing (the field stays unset). */
function optionalSum(
  key: "cacheWriteInputTokens" | "reasoningTokens",
  a: RunUsage,
  b: RunUsage,
): Partial<RunUsage> {
  const total = (a[key] ?? 0) + (b[key] ?? 0);
  return total > 0 ? { [key]: total } : {};
}
