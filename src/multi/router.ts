import { z } from "zod";
import { Agent } from "../agent/agent.js";
import type { RunOptions, RunResult } from "../agent/agent-config.js";
import { BudgetExceededError, ConfigError } from "../core/errors.js";
import type { LimitName, Limits } from "../core/vocabulary/limits.js";
import type { Message } from "../core/vocabulary/messages.js";
import type { RunUsage } from "../core/vocabulary/usage.js";
import { checkLimits, tightenLimits } from "../loop/limits-check.js";
import type { Model } from "../models/model.js";
import { UnknownSessionError } from "../store/errors.js";
import { deferredDefaultStore } from "../store/sqlite/deferred-default-store.js";
import type { Store } from "../store/store.js";
import { tool } from "../tools/tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";

/** What a specialist receives of the conversation: all of it, only the latest user input, or your choice. */
export type HandoffHistory = "full" | "input" | ((conversation: Message[]) => Message[]);

/** A specialist the router can hand the conversation to. */
export interface Specialist<TOutput> {
  /** One line the router reads to choose. */
  description: string;
  /** The agent that answers; with a session, its `store` (when it has one) must be the router's. */
  agent: Pick<Agent<undefined, TOutput>, "run"> & { readonly store?: Store };
}

/** How a router is made. */
export interface RouterConfig<TNames extends string, TOutput> {
  model: Model;
  instructions?: string;
  specialists: Record<TNames, Specialist<TOutput>>;
  /** Default "full". */
  history?: HandoffHistory;
  /** One budget for the whole routed run, router and specialist together (combined with the run's by taking the lower). */
  limits?: Limits;
  /** Where `session`s live; default the first specialist's store (an Agent's `store`), else the default store. */
  store?: Store;
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
 * A router agent that hands the conversation to one of several specialists (one agent with many
 * tools split into specialists). The choice is a tool call `transfer_to_<name>`,
 * visible in the router's events like any other call; the specialist's run follows, inside what
 * the router left of the budget.
 */
export class Router<TNames extends string, TOutput = string> {
  readonly #router: Agent<undefined, TNames>;
  readonly #config: RouterConfig<TNames, TOutput>;

  constructor(config: RouterConfig<TNames, TOutput>) {
    const names = Object.keys(config.specialists) as TNames[];
    if (names.length === 0) throw new ConfigError("A Router needs at least one specialist");
    checkLimits(config.limits ?? {}, "Router limits");
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

  /**
   * Routes `input` and runs the chosen specialist. With `session`, the router reads the session's
   * conversation to choose, and the specialist runs on the session: only the conversation (the
   * input and the specialist's turn) is saved, never the routing, and a failed routing saves nothing.
   */
  async run(
    input: string,
    options: Omit<RunOptions<undefined>, "context"> = {},
  ): Promise<RoutedResult<TNames, TOutput>> {
    const started = performance.now();
    const { session, history: given, limits: extra, ...rest } = options;
    if (extra) checkLimits(extra, "options.limits");
    const limits = tightenLimits(this.#config.limits ?? {}, extra);
    const handoff = this.#config.history ?? "full";
    let past: readonly Message[] = given ?? [];
    if (session !== undefined) {
      if (given !== undefined)
        throw new ConfigError(
          "Give a routed run either `session` (history from the store) or `history`, not both",
        );
      if (handoff !== "full")
        throw new ConfigError(
          `Router: history ${typeof handoff === "string" ? `"${handoff}"` : "(a function)"} cannot be combined with a session: the specialist runs on the session and sees all of it; use history "full"`,
        );
      past = await readConversation(this.#store(), session);
    }
    const routed = await this.#router.run(input, {
      ...rest,
      ...(past.length > 0 && { history: past }),
      limits,
    });
    const name = routed.output;
    const specialist = this.#config.specialists[name];
    // One budget: the specialist gets what the router left of it.
    const left = leftOver(limits, routed.usage, performance.now() - started);
    let result: RunResult<TOutput>;
    try {
      if (session !== undefined) {
        this.#checkStore(name, specialist);
        result = await specialist.agent.run(input, { ...rest, session, limits: left });
      } else {
        const conversation: Message[] = [...past, { role: "user", content: input }];
        const history = selectHistory(handoff, conversation);
        const last = history.at(-1);
        const task = last?.role === "user" ? last.content : input;
        result = await specialist.agent.run(task, {
          ...rest,
          history: last?.role === "user" ? history.slice(0, -1) : history,
          limits: left,
        });
      }
    } catch (error) {
      throw wholeRunError(error, limits, routed.usage, performance.now() - started);
    }
    return {
      ...result,
      agent: name,
      routerMessages: routed.messages,
      usage: sumUsage(routed.usage, result.usage),
    };
  }

  /** The store sessions are read from: the configured one, else the first specialist's. */
  #store(): Store {
    if (this.#config.store) return this.#config.store;
    const first = Object.values<Specialist<TOutput>>(this.#config.specialists)[0];
    return first?.agent.store ?? deferredDefaultStore();
  }

  #checkStore(name: string, specialist: Specialist<TOutput>): void {
    const own = specialist.agent.store;
    const store = this.#store();
    if (own && own.location !== store.location)
      throw new ConfigError(
        `Router: specialist "${name}" keeps sessions in ${own.location}, the router reads them from ${store.location}; give them one store`,
      );
  }
}

/** A session's messages, or none for a session that does not exist yet. */
async function readConversation(store: Store, session: string): Promise<Message[]> {
  try {
    return await store.readSession(session);
  } catch (error) {
    if (error instanceof UnknownSessionError) return [];
    throw error;
  }
}

/** What `limits` leave after `spent` and `elapsedMs`: the ceilings of the rest of the run. */
function leftOver(limits: Limits, spent: RunUsage, elapsedMs: number): Limits {
  const left: Limits = { ...limits };
  const minus = (max: number | undefined, used: number) =>
    max === undefined ? undefined : Math.max(0, max - used);
  const set = (key: keyof Limits, value: number | undefined) => {
    if (value !== undefined) left[key] = value;
  };
  set("maxSteps", minus(limits.maxSteps, spent.steps.length));
  set("maxToolCalls", minus(limits.maxToolCalls, spent.toolCalls));
  set("maxTokens", minus(limits.maxTokens, spent.inputTokens + spent.outputTokens));
  set("maxCostUsd", minus(limits.maxCostUsd, spent.costUsd ?? 0));
  set("timeoutMs", minus(limits.timeoutMs, elapsedMs));
  return left;
}

/** A specialist's budget stop restated for the whole routed run: its numbers are the run's, not the rest's. */
function wholeRunError(error: unknown, limits: Limits, router: RunUsage, elapsedMs: number): unknown {
  if (!(error instanceof BudgetExceededError)) return error;
  const max = limits[error.limit];
  if (max === undefined) return error;
  const before: Record<LimitName, number> = {
    maxSteps: router.steps.length,
    maxToolCalls: router.toolCalls,
    maxTokens: router.inputTokens + router.outputTokens,
    maxCostUsd: router.costUsd ?? 0,
    timeoutMs: 0,
  };
  const used = error.limit === "timeoutMs" ? Math.max(elapsedMs, max) : before[error.limit] + error.used;
  return new BudgetExceededError(error.limit, used, max, {
    runId: error.runId,
    messages: error.messages,
    usage: sumUsage(router, error.usage),
  });
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
