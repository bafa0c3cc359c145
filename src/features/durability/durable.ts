import { RunAbortedError, RunSuspendedError, runStatusOf } from "../../core/errors.js";
import type { AssistantMessage, FinishReason, Message, ToolCall } from "../../core/vocabulary/messages.js";
import type { ToolOutcome } from "../../core/vocabulary/outcome.js";
import type { AskingTurn, RunEnding, RunHooks, RunState } from "../../loop/hooks.js";
import { RunFencedError } from "../../store/errors.js";
import type {
  PendingCall,
  ProgressMode,
  RunProgress,
  Store,
  StoredRun,
  StoredRunEnd,
} from "../../store/store.js";
import type { LoopGuard } from "../loop-guard.js";
import { lastAssistant, startPosition } from "./resume.js";

/**
 * Durability as a run feature: checkpoints before every model call and after its answer, before
 * and after every tool call, the end record (with the session save) at the end; a resumed run
 * starts where its checkpoints say, finishing the interrupted turn first.
 */
export function durabilityHooks(durable: DurableRun, resumed?: StoredRun): RunHooks {
  const hooks: RunHooks = {
    beforeModelCall: (state) => durable.checkpoint(state),
    afterResponse: (state, _step, assistant, finishReason) =>
      durable.answered(state, assistant, finishReason),
    async toolCall(state, _step, ready, next) {
      await durable.started(state, ready.call);
      const outcome = await next();
      await durable.finished(state, ready.call, outcome);
      return outcome;
    },
    pauseForInput: (state, _step, turn) => durable.askPerson(state, turn).then(() => undefined),
    end: (state, ending) => durable.end(state, ending),
  };
  if (resumed)
    hooks.start = async (state) => {
      const { position, recover } = startPosition(resumed, state);
      if (recover) durable.recover(recover.turn, recover.calls);
      return position;
    };
  return hooks;
}

/**
 * Checkpoints one run into a Store: after every model response, before and after every tool
 * call, and at the end, each write one transaction. On resume it also answers, per call, what
 * the interrupted turn already knows, so no completed call runs twice.
 */
export class DurableRun {
  readonly store: Store;
  readonly runId: string;
  #persisted: number;
  #turn: AssistantMessage | undefined;
  #calls = new Map<string, PendingCall>();
  readonly #guard: LoopGuard | undefined;
  #writes: Promise<void> = Promise.resolve();
  /** The latest answer and its finish reason, kept in progress while it is the last assistant message. */
  #answer: { turn: AssistantMessage; finishReason: FinishReason } | undefined;
  /** Calls whose state changed since the last checkpoint; the store holds the others as they are. */
  #changed = new Set<string>();
  /** Whether the store's pending calls belong to `#turn` (false: the next checkpoint replaces them). */
  #inStore = false;
  /** The guard's turn count at the last checkpoint: it changes once a turn, not once a call. */
  #guardTurn: number | undefined;

  /** The fencing token of this process's claim, sent with every write (absent: the store keeps none). */
  readonly #fence: number | undefined;

  /**
   * `guard`: the run's loop guard, whose memory is checkpointed with the progress. `fence`: the
   * token the run's creation or claim got; the store refuses this run's writes once another
   * process claimed the run since.
   */
  constructor(store: Store, runId: string, persisted: number, guard?: LoopGuard, fence?: number) {
    this.store = store;
    this.runId = runId;
    this.#persisted = persisted;
    this.#guard = guard;
    this.#fence = fence;
  }

  /** The interrupted turn a resumed run finishes, with its calls as the store holds them. */
  recover(turn: AssistantMessage, calls: PendingCall[]): void {
    this.#turn = turn;
    for (const pending of calls) this.#calls.set(pending.call.id, pending);
    // The store holds exactly these calls: later checkpoints send only what changes.
    this.#inStore = true;
  }

  /** A model answer was added to the transcript: checkpoints it with its finish reason. */
  answered(state: RunState<unknown>, turn: AssistantMessage, finishReason: FinishReason): Promise<void> {
    this.#answer = { turn, finishReason };
    return this.checkpoint(state);
  }

  /** Writes the transcript, usage and pending calls as they are now. */
  checkpoint(state: RunState<unknown>, status: "running" | "awaiting_approval" = "running"): Promise<void> {
    return this.#enqueue(async () => {
      const messages = state.messages;
      const progress = this.#progress(state);
      await this.store.checkpoint(this.runId, {
        persisted: this.#persisted,
        messages,
        // Totals plus the current step only: a checkpoint costs the same at step 1,000 as at step 1.
        usage: state.meter.progress(),
        ...progress,
        status,
        ...(this.#fence !== undefined && { fence: this.#fence }),
      });
      this.#persisted = messages.length;
    });
  }

  /** Pauses the run for approval: the turn's calls wait, none has run. */
  pause(state: RunState<unknown>, pending: PendingCall[]): Promise<void> {
    return this.#enqueue(async () => {
      const messages = state.messages;
      await this.store.checkpoint(this.runId, {
        persisted: this.#persisted,
        messages,
        usage: state.meter.progress(),
        progress: { pending, ...(this.#guard && { guard: this.#guard.save() }) },
        status: "awaiting_approval",
        ...(this.#fence !== undefined && { fence: this.#fence }),
      });
      this.#persisted = messages.length;
      // The store now holds the paused states, not `#calls`: a later checkpoint rewrites the turn.
      this.#inStore = false;
    });
  }

  /**
   * Pauses the run for the person's answers: the turn's calls that asked wait with their
   * questions, those that finished keep their outcomes (not run again on resume), the rest are
   * queued. Written once every call of the turn settled, so nothing runs while the run waits.
   */
  askPerson(state: RunState<unknown>, turn: AskingTurn): Promise<void> {
    const pending: PendingCall[] = turn.calls.map((call, i) => {
      const questions = turn.asked.get(i);
      if (questions) return { call, state: "awaiting_input", questions: [...questions] };
      const outcome = turn.outcomes[i];
      if (outcome) return { call, state: "done", outcome: storedOutcome(state, call, outcome) };
      return { call, state: "queued" };
    });
    return this.pause(state, pending);
  }

  /** A tool call is about to run: a crash from now on leaves its effect unknown. */
  started(state: RunState<unknown>, call: ToolCall): Promise<void> {
    this.#track(state, call, { call, state: "started" });
    return this.checkpoint(state);
  }

  /** A tool call finished: its result is durable before the turn moves on. */
  finished(state: RunState<unknown>, call: ToolCall, outcome: ToolOutcome): Promise<void> {
    this.#track(state, call, { call, state: "done", outcome: storedOutcome(state, call, outcome) });
    return this.checkpoint(state);
  }

  /** The end of the run, with the session save in the same transaction. */
  finish(
    state: RunState<unknown>,
    end: Omit<StoredRunEnd, "persisted" | "messages" | "usage">,
  ): Promise<void> {
    return this.#enqueue(async () => {
      await this.store.finishRun(this.runId, {
        ...end,
        persisted: this.#persisted,
        messages: state.messages,
        // Earlier steps were stored by earlier checkpoints; the last one is final now.
        usage: state.meter.progress(),
        ...(this.#fence !== undefined && { fence: this.#fence }),
      });
      this.#persisted = state.messages.length;
    });
  }

  /**
   * The end record: the output (JSON only) on success, else the status and error. A store that
   * fails to record a failed run is reported beside the run's own error, which is what the
   * caller must see.
   */
  async end(state: RunState<unknown>, ending: RunEnding): Promise<void> {
    if (ending.ok) return this.finish(state, { status: "ok", ...jsonOutput(ending.outcome.output) });
    const { error } = ending;
    const status = runStatusOf(error);
    if (status === "awaiting_approval") return;
    // Suspended to be continued elsewhere: no end, the run stays resumable at its last checkpoint.
    if (error instanceof RunAbortedError && error.cause instanceof RunSuspendedError) return;
    try {
      await this.finish(state, { status, error: { code: error.code, message: error.message } });
    } catch (storeError) {
      // Another process holds the run now (it was handed over, or this one lost its lease): its end is theirs.
      if (storeError instanceof RunFencedError) return;
      process.emitWarning(`glassloop: could not record the end of run ${state.runId}: ${String(storeError)}`);
    }
  }

  #track(state: RunState<unknown>, call: ToolCall, pending: PendingCall): void {
    this.#follow(lastAssistant(state.messages));
    this.#calls.set(call.id, pending);
    this.#changed.add(call.id);
  }

  /** A new assistant message starts a new turn: forget the old one's calls. */
  #follow(turn: AssistantMessage | undefined): void {
    if (turn === this.#turn) return;
    this.#turn = turn;
    this.#calls = new Map();
    this.#changed = new Set();
    this.#inStore = false;
  }

  /**
   * Calls of the last assistant message that have no result in the transcript yet: all of them
   * when the turn is new to the store, else only those that changed, so a checkpoint after each
   * call of a turn of N calls writes O(1) calls, not O(N).
   */
  #progress(state: RunState<unknown>): { progress: RunProgress; progressMode?: ProgressMode } {
    const messages = state.messages;
    const turn = lastAssistant(messages);
    this.#follow(turn);
    // The turn's results are pushed all at once when it ends, so this scan is empty mid-turn.
    const answered = new Set<string>();
    for (let i = messages.length - 1; i >= 0 && messages[i] !== turn; i--) {
      const m = messages[i] as Message;
      if (m.role === "tool") answered.add(m.toolCallId);
    }
    if (this.#inStore && answered.size === 0) {
      const changed: PendingCall[] = [];
      for (const id of this.#changed) changed.push(this.#calls.get(id) as PendingCall);
      this.#changed.clear();
      // The rest (the guard's memory of a whole turn) changes once a turn, not once a call.
      if (this.#guard === undefined || this.#guard.turns === this.#guardTurn)
        return { progress: { pending: changed }, progressMode: "calls" };
      return { progress: { pending: changed, ...this.#rest(turn) }, progressMode: "calls-and-rest" };
    }
    const pending: PendingCall[] = (turn?.toolCalls ?? [])
      .filter((c) => !answered.has(c.id))
      .map((c) => this.#calls.get(c.id) ?? { call: c, state: "queued" });
    this.#changed.clear();
    // Answered calls leave the store for good; the calls still open stay as written.
    this.#inStore = pending.length > 0;
    return { progress: { pending, ...this.#rest(turn) } };
  }

  /** The progress besides its calls: the guard's memory and the last answer's finish reason. */
  #rest(turn: AssistantMessage | undefined): Omit<RunProgress, "pending"> {
    const guard = this.#guard;
    this.#guardTurn = guard?.turns;
    const answer = this.#answer?.turn === turn ? this.#answer : undefined;
    return {
      ...(guard && { guard: guard.save() }),
      ...(answer && { finishReason: answer.finishReason }),
    };
  }

  /** Writes run one after another, so concurrent tool calls cannot reorder checkpoints. */
  #enqueue(write: () => Promise<void>): Promise<void> {
    const next = this.#writes.then(write);
    this.#writes = next.catch(() => {});
    return next;
  }
}

/** What the store keeps of a call's outcome: what the model and a terminal tool's output need. */
function storedOutcome(state: RunState<unknown>, call: ToolCall, outcome: ToolOutcome): ToolOutcome {
  const terminal = state.environment.registry.get(call.name)?.terminal === true;
  // errorDetail is for traces, never stored.
  const stored: ToolOutcome = { status: outcome.status, content: outcome.content };
  // The images and files go back to the model with the content, so a resumed turn needs them.
  if (outcome.images) stored.images = outcome.images;
  if (outcome.files) stored.files = outcome.files;
  // Only a terminal tool's value is ever used again (as the run's output); it must be JSON.
  if (terminal && outcome.status === "ok" && outcome.value !== undefined) stored.value = outcome.value;
  return stored;
}

/** The output as stored: JSON values only (a class instance or a cycle is recorded as absent). */
function jsonOutput(output: unknown): { output?: unknown } {
  if (output === undefined) return {};
  try {
    JSON.stringify(output);
    return { output };
  } catch {
    return {};
  }
}
