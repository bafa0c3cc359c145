import { ConfigError } from "../errors.js";
import type { ToolCall } from "../vocabulary/messages.js";

/** Settings of the guard against repeated identical calls. */
export interface LoopGuardOptions {
  /** Identical repeats in consecutive turns tolerated (answered from memory) before the run ends (default 2). */
  maxRepeats?: number;
}

/** Throws a ConfigError unless `maxRepeats` is a whole number >= 0. */
export function checkLoopGuard(options: LoopGuardOptions): void {
  const { maxRepeats } = options;
  if (maxRepeats !== undefined && !(Number.isInteger(maxRepeats) && maxRepeats >= 0)) {
    throw new ConfigError(`loopGuard.maxRepeats must be a whole number >= 0, got ${String(maxRepeats)}`);
  }
}

/** A call the guard recognized: the result the model already got for it. */
export interface Repeat {
  earlierContent: string;
  repeats: number;
}

/**
 * Remembers the previous turn's calls (tool name plus canonical arguments) and their results,
 * so a call repeated in the next turn is answered with the earlier result instead of re-run.
 */
export class LoopGuard {
  readonly maxRepeats: number;
  #previous = new Map<string, { content: string; repeats: number }>();
  #current = new Map<string, { content: string; repeats: number }>();
  #turns = 0;

  constructor(options: LoopGuardOptions = {}) {
    checkLoopGuard(options);
    this.maxRepeats = options.maxRepeats ?? 2;
  }

  /** The earlier result if this call repeats one from the previous turn. */
  check(call: ToolCall): Repeat | undefined {
    const seen = this.#previous.get(keyOf(call));
    return seen && { earlierContent: seen.content, repeats: seen.repeats + 1 };
  }

  /** Records a call's result for this turn. */
  record(call: ToolCall, content: string, repeats = 0): void {
    this.#current.set(keyOf(call), { content, repeats });
  }

  /** How many times what `save` returns has changed: a checkpoint rewrites it only then. */
  get turns(): number {
    return this.#turns;
  }

  /** Ends the turn: only consecutive repeats count. */
  nextTurn(): void {
    this.#turns++;
    // The two maps swap roles instead of a new map per turn; nothing outside holds either.
    const spent = this.#previous;
    this.#previous = this.#current;
    spent.clear();
    this.#current = spent;
  }

  /** The previous turn's calls as plain JSON, for a durable run's checkpoint. */
  save(): [string, { content: string; repeats: number }][] {
    return [...this.#previous];
  }

  /** Restores what `save` returned, so a resumed run judges repeats as the original would have. */
  restore(saved: unknown): void {
    if (!Array.isArray(saved)) return;
    this.#previous = new Map(saved as [string, { content: string; repeats: number }][]);
    this.#turns++;
  }
}

// check() and record() see the same call object; parsing its arguments once halves the guard's cost.
const keys = new WeakMap<ToolCall, string>();

function keyOf(call: ToolCall): string {
  let key = keys.get(call);
  if (key === undefined) {
    key = computeKey(call);
    keys.set(call, key);
  }
  return key;
}

function computeKey(call: ToolCall): string {
  let args: unknown;
  try {
    args = JSON.parse(call.arguments || "{}");
  } catch {
    return `${call.name}\u0000${call.arguments}`;
  }
  return `${call.name}\u0000${canonical(args)}`;
}

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same call. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    // The default sort compares UTF-16 code units, as `<` does; no entry pairs or closures.
    const keys = Object.keys(value).sort();
    const record = value as Record<string, unknown>;
    let text = "";
    for (const k of keys) text += `${text ? "," : ""}${JSON.stringify(k)}:${canonical(record[k])}`;
    return `{${text}}`;
  }
  return JSON.stringify(value);
}
