import type { Message } from "../core/vocabulary/messages.js";
import { type Ceiling, type CeilingOptions, ceilingFor, checkCeiling } from "./ceiling.js";
import { fixedTokens, type MemoryContext, type MemoryStrategy } from "./strategy.js";
import type { TokenCounter } from "./tokens.js";
import { groupUnits, latestUserIndex, sanitize } from "./units.js";

/** Options of {@link WindowMemory}. */
export type WindowMemoryOptions = CeilingOptions;

/**
 * Sends the instructions plus the newest messages that fit in `maxTokens` (or `at`, a fraction of
 * the model's context window). A tool call and its results are kept or dropped together, and the
 * latest user message is always kept.
 */
export class WindowMemory implements MemoryStrategy {
  readonly maxTokens?: number;
  readonly at?: number;
  readonly #ceiling: Ceiling;

  constructor(options: WindowMemoryOptions) {
    this.#ceiling = checkCeiling(options, "WindowMemory");
    if (this.#ceiling.maxTokens !== undefined) this.maxTokens = this.#ceiling.maxTokens;
    if (this.#ceiling.at !== undefined) this.at = this.#ceiling.at;
  }

  async select(messages: readonly Message[], context: MemoryContext): Promise<Message[]> {
    const max = ceilingFor(this.#ceiling, context, "WindowMemory");
    return fitWindow(messages, max - fixedTokens(context), context.tokens);
  }
}

/**
 * The newest messages whose tokens fit `budget`, as whole units, without gaps among the units
 * it keeps besides the pinned ones. The latest user message and `pinned` indices are kept even
 * when they alone exceed the budget: dropping the question is worse than an over-long request,
 * which the provider then refuses visibly.
 */
export function fitWindow(
  messages: readonly Message[],
  budget: number,
  tokens: TokenCounter,
  pinned: ReadonlySet<number> = new Set(),
): Message[] {
  const units = groupUnits(messages);
  const mustKeep = new Set(pinned);
  const latestUser = latestUserIndex(messages);
  if (latestUser >= 0) mustKeep.add(latestUser);
  const cost = (indices: number[]) => indices.reduce((n, i) => n + tokens.message(messages[i] as Message), 0);
  const mandatory = new Set(units.filter((u) => u.indices.some((i) => mustKeep.has(i))));
  let left = budget;
  for (const unit of mandatory) left -= cost(unit.indices);
  const chosen = new Set(mandatory);
  for (let u = units.length - 1; u >= 0; u--) {
    const unit = units[u] as (typeof units)[number];
    if (mandatory.has(unit)) continue;
    const c = cost(unit.indices);
    if (c > left) break;
    chosen.add(unit);
    left -= c;
  }
  // Providers want the conversation to open with a user turn: drop older units until one does.
  for (const unit of units) {
    if (!chosen.has(unit)) continue;
    if (mandatory.has(unit) || messages[unit.indices[0] as number]?.role === "user") break;
    chosen.delete(unit);
  }
  return sanitize(
    messages,
    [...chosen].flatMap((u) => u.indices),
  );
}
