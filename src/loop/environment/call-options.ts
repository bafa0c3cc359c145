import type { Stop } from "../../core/stop.js";
import type { AgentEvent } from "../../core/vocabulary/events.js";
import type { RemainingBudget } from "../../core/vocabulary/limits.js";
import type { Message } from "../../core/vocabulary/messages.js";
import type { PersonAnswer, PersonQuestion } from "../../core/vocabulary/questions.js";
import type { RunUsage } from "../../core/vocabulary/usage.js";
import type { ToolRunOptions } from "../../tools/tool.js";
import type { CallStop } from "./call-stop.js";

/** What a tool run needs from the loop. */
export interface ExecuteOptions {
  /** The run's stop: a call whose run stopped does not start, and one running is abandoned. */
  stop: Stop;
  messages: readonly Message[];
  usage: () => RunUsage;
  remaining: () => RemainingBudget;
  addUsage: (usage: RunUsage) => void;
  forward: (event: AgentEvent) => void;
  /** The recorded answer to a question this call asked again (a resumed run), taken once. */
  answered: (question: PersonQuestion) => PersonAnswer | undefined;
}

/**
 * The `options` a tool's `run` receives. `signal`, `usage` and `remaining` are worked out when the
 * tool reads them (most tools never do: an AbortController per call, and a usage snapshot that
 * costs O(steps), would be paid by every call), yet they are own, enumerable properties as in a
 * plain object, so `{ ...options }` keeps them.
 *
 * Why a class and not an object literal with getters: a literal's getters are new closures on
 * every evaluation, and V8 gives each such object a map of its own. Maps live in the old
 * generation, so every call's closures, and through them the whole run they close over, survived
 * the young generation's collections and were promoted: in the floor bench about 2 KB a call, and
 * the young generation's survival rate several times the hand-written loop's. Here the accessors
 * are the same two functions for every call, so every instance shares one map.
 */
export class CallOptions<TContext> implements ToolRunOptions<TContext> {
  readonly context: TContext;
  readonly toolCallId: string;
  readonly messages: readonly Message[];
  readonly addUsage: (usage: RunUsage) => void;
  readonly forward: (event: AgentEvent) => void;
  readonly answered: (question: PersonQuestion) => PersonAnswer | undefined;
  declare readonly signal: AbortSignal;
  declare readonly usage: RunUsage;
  declare readonly remaining: RemainingBudget;
  readonly #stop: CallStop;
  readonly #run: ExecuteOptions;

  constructor(context: TContext, toolCallId: string, stop: CallStop, run: ExecuteOptions) {
    this.context = context;
    this.toolCallId = toolCallId;
    this.messages = run.messages;
    this.addUsage = run.addUsage;
    this.forward = run.forward;
    this.answered = run.answered;
    this.#stop = stop;
    this.#run = run;
    Object.defineProperty(this, "signal", CallOptions.#signal);
    Object.defineProperty(this, "usage", CallOptions.#usage);
    Object.defineProperty(this, "remaining", CallOptions.#remaining);
  }

  // One descriptor object and one getter each, for every instance (see the class's comment).
  static #signal: PropertyDescriptor = {
    get(this: CallOptions<unknown>) {
      return this.#stop.signal;
    },
    enumerable: true,
  };
  static #usage: PropertyDescriptor = {
    get(this: CallOptions<unknown>) {
      return this.#run.usage();
    },
    enumerable: true,
  };
  static #remaining: PropertyDescriptor = {
    get(this: CallOptions<unknown>) {
      return this.#run.remaining();
    },
    enumerable: true,
  };
}
