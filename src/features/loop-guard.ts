import { ConfigError, LoopDetectedError } from "../core/errors.js";
import type { ToolCall } from "../core/vocabulary/messages.js";
import type { ToolOutcome } from "../core/vocabulary/outcome.js";
import { truncate } from "../loop/environment/feedback.js";
import type {
  AnsweredCalls,
  ConcurrentDecision,
  PreparedCall,
  RunHooks,
  RunState,
  TurnRecord,
  TurnStop,
} from "../loop/hooks.js";
import { errorState } from "../loop/run-state.js";

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
  // check() and record() see the same call object: its key is made once, and kept for its turn only.
  #keys = new Map<ToolCall, string>();

  constructor(options: LoopGuardOptions = {}) {
    checkLoopGuard(options);
    this.maxRepeats = options.maxRepeats ?? 2;
  }

  /** The earlier result if this call repeats one from the previous turn. */
  check(call: ToolCall): Repeat | undefined {
    // Nothing to repeat (the first turn, or one after a turn without calls): no key to make.
    if (this.#previous.size === 0) return undefined;
    const seen = this.#previous.get(this.#keyOf(call));
    return seen && { earlierContent: seen.content, repeats: seen.repeats + 1 };
  }

  /** Records a call's result for this turn. */
  record(call: ToolCall, content: string, repeats = 0): void {
    this.#current.set(this.#keyOf(call), { content, repeats });
  }

  #keyOf(call: ToolCall): string {
    let key = this.#keys.get(call);
    if (key === undefined) {
      key = computeKey(call);
      this.#keys.set(call, key);
    }
    return key;
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
    this.#keys.clear();
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

/**
 * The guard as a run feature. Before a turn's concurrent calls run, a call repeated from the
 * previous turn is answered with its earlier result instead of running again, and past
 * `maxRepeats` the run stops (loop detected); after each turn, the calls that ran are
 * remembered and the turn is counted (a turn without calls breaks a run of repeats).
 */
export function loopGuardHooks(guard: LoopGuard): RunHooks {
  return {
    beforeConcurrentCalls(state, _step, prepared, answered) {
      return answerRepeats(guard, state, prepared, answered);
    },
    afterTurn(_state, _step, turn) {
      rememberTurn(guard, turn);
    },
  };
}

function answerRepeats(
  guard: LoopGuard,
  state: RunState<unknown>,
  prepared: readonly PreparedCall[],
  answered: AnsweredCalls,
): ConcurrentDecision | undefined {
  let loop: { toolName: string; repeats: number } | undefined;
  let answers: Map<number, ToolOutcome> | undefined;
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i] as PreparedCall;
    if (p.kind !== "ready" || answered[i]) continue;
    const repeat = guard.check(p.call);
    if (!repeat) continue;
    guard.record(p.call, repeat.earlierContent, repeat.repeats);
    answers ??= new Map();
    answers.set(i, {
      status: "repeated",
      // Instruction first, so the size limit can only cut the repeated result, never the point.
      content: truncate(
        `You already called ${p.call.name} with these exact arguments in the previous step. Do not repeat the call; use its result or try something different. Its result was: ${repeat.earlierContent}`,
        p.tool.maxResultChars ?? state.environment.options.maxResultChars,
      ),
    });
    if (repeat.repeats > guard.maxRepeats) loop ??= { toolName: p.call.name, repeats: repeat.repeats + 1 };
  }
  if (!loop) return answers && { answers };
  const { toolName, repeats } = loop;
  const stop: TurnStop = {
    reason: "loop detected",
    error: (s) => new LoopDetectedError(toolName, repeats, errorState(s)),
  };
  return answers ? { answers, stop } : { stop };
}

/** Remembers the results of the turn's calls that ran (not a terminal call's) and ends the turn. */
function rememberTurn(guard: LoopGuard, turn: TurnRecord): void {
  const { prepared, outcomes } = turn;
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i] as PreparedCall;
    const outcome = outcomes[i] as ToolOutcome;
    if (p.kind !== "ready" || p.tool.terminal) continue;
    if (outcome.status === "ok" || outcome.status === "error") guard.record(p.call, outcome.content);
  }
  guard.nextTurn();
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
