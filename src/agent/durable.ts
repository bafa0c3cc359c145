import type { ToolOutcome } from "../environment/environment.js";
import type { AssistantMessage, Message, ToolCall } from "../memory/messages.js";
import type { FinishReason } from "../models/model.js";
import type { PendingCall, RunEnd, RunProgress, Store, StoredOutcome } from "../store/store.js";
import { lastAssistant } from "./assistant-message.js";
import type { RunState } from "./run-state.js";

/** A recovered or decided outcome the turn uses instead of running the tool. */
export type KnownOutcome = ToolOutcome;

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
  #known = new Map<string, KnownOutcome>();
  #writes: Promise<void> = Promise.resolve();
  /** The latest answer and its finish reason, kept in progress while it is the last assistant message. */
  #answer: { turn: AssistantMessage; finishReason: FinishReason } | undefined;

  constructor(store: Store, runId: string, persisted: number) {
    this.store = store;
    this.runId = runId;
    this.#persisted = persisted;
  }

  /** Outcomes the resumed turn must use as they are (finished before the crash, or interrupted). */
  recover(turn: AssistantMessage, calls: PendingCall[], known: Map<string, KnownOutcome>): void {
    this.#turn = turn;
    for (const pending of calls) this.#calls.set(pending.call.id, pending);
    this.#known = known;
  }

  /** The outcome a resumed call already has, if any; the turn then skips running the tool. */
  known(call: ToolCall): KnownOutcome | undefined {
    const outcome = this.#known.get(call.id);
    if (outcome) this.#known.delete(call.id);
    return outcome;
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
        progress,
        status,
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
        progress: { pending, ...(state.guard && { guard: state.guard.save() }) },
        status: "awaiting_approval",
      });
      this.#persisted = messages.length;
    });
  }

  /** A tool call is about to run: a crash from now on leaves its effect unknown. */
  started(state: RunState<unknown>, call: ToolCall): Promise<void> {
    this.#track(state, call, { call, state: "started" });
    return this.checkpoint(state);
  }

  /** A tool call finished: its result is durable before the turn moves on. */
  finished(state: RunState<unknown>, call: ToolCall, outcome: ToolOutcome): Promise<void> {
    const terminal = state.environment.registry.get(call.name)?.terminal === true;
    const stored: StoredOutcome = { status: outcome.status, content: outcome.content };
    // Only a terminal tool's value is ever used again (as the run's output); it must be JSON.
    if (terminal && outcome.status === "ok" && outcome.value !== undefined) stored.value = outcome.value;
    this.#track(state, call, { call, state: "done", outcome: stored });
    return this.checkpoint(state);
  }

  /** The end of the run, with the session save in the same transaction. */
  finish(state: RunState<unknown>, end: Omit<RunEnd, "persisted" | "messages" | "usage">): Promise<void> {
    return this.#enqueue(async () => {
      await this.store.finishRun(this.runId, {
        ...end,
        persisted: this.#persisted,
        messages: state.messages,
        // Earlier steps were stored by earlier checkpoints; the last one is final now.
        usage: state.meter.progress(),
      });
      this.#persisted = state.messages.length;
    });
  }

  #track(state: RunState<unknown>, call: ToolCall, pending: PendingCall): void {
    const turn = lastAssistant(state.messages);
    if (turn !== this.#turn) {
      this.#turn = turn;
      this.#calls = new Map();
    }
    this.#calls.set(call.id, pending);
  }

  /** Calls of the last assistant message that have no result in the transcript yet. */
  #progress(state: RunState<unknown>): RunProgress {
    const messages = state.messages;
    const turn = lastAssistant(messages);
    if (turn !== this.#turn) {
      this.#turn = turn;
      this.#calls = new Map();
    }
    const answered = new Set<string>();
    for (let i = messages.length - 1; i >= 0 && messages[i] !== turn; i--) {
      const m = messages[i] as Message;
      if (m.role === "tool") answered.add(m.toolCallId);
    }
    const pending: PendingCall[] = (turn?.toolCalls ?? [])
      .filter((c) => !answered.has(c.id))
      .map((c) => this.#calls.get(c.id) ?? { call: c, state: "queued" });
    const answer = this.#answer?.turn === turn ? this.#answer : undefined;
    return {
      pending,
      ...(state.guard && { guard: state.guard.save() }),
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
