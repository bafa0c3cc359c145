import type { InvalidCall, ReadyCall } from "../environment/environment.js";
import { ConfigError, RunError, type RunErrorState } from "../errors.js";
import type { ToolCall } from "../memory/messages.js";
import type { PendingCall } from "../store/store.js";
import type { ToolOutcomeStatus } from "./events.js";
import { errorState, type RunState } from "./run-state.js";

/** A tool call waiting for a human decision. */
export interface PendingApproval {
  toolCallId: string;
  toolName: string;
  /** The exact arguments the model sent (JSON text), to show the person deciding. */
  arguments: string;
}

/** Decides a call in the same process (a terminal prompt, a UI): true runs it, false rejects it. */
export type ApprovalHandler = (call: PendingApproval, signal: AbortSignal) => boolean | Promise<boolean>;

/** What a rejected call tells the model. */
export const NOT_APPROVED = "Not approved by the user.";

/**
 * The run paused before running calls that need approval (`needsApproval`). Its state is stored
 * with status `awaiting_approval`; continue with `agent.resume(runId, { approve, reject })`, or
 * with `onApproval` to decide the calls those lists leave out.
 */
export class ApprovalRequiredError extends RunError {
  readonly pending: PendingApproval[];
  constructor(pending: PendingApproval[], state: RunErrorState) {
    super(
      "awaiting_approval",
      `The run is waiting for approval of ${pending.map((p) => `${p.toolName} (${p.toolCallId})`).join(", ")}; ` +
        `resume it with agent.resume(${JSON.stringify(state.runId)}, { approve: [...], reject: [...] })`,
      state,
    );
    this.pending = pending;
  }
}

type Decided = { status: ToolOutcomeStatus; content: string };

/**
 * Gates the calls of a turn whose tool needs approval: each is approved or rejected by the
 * decisions given to `resume`, else by the run's handler, else the run pauses before any call of
 * the turn runs (so a decision never races a half-run turn).
 */
export class ApprovalGate {
  readonly #decisions: Map<string, boolean>;
  readonly #handler: ApprovalHandler | undefined;

  constructor(options: { decisions?: Map<string, boolean>; handler?: ApprovalHandler }) {
    this.#decisions = options.decisions ?? new Map();
    this.#handler = options.handler;
  }

  /** Rejected calls' results by index; throws ApprovalRequiredError (after checkpointing) to pause. */
  async review(
    state: RunState<unknown>,
    prepared: readonly (ReadyCall<unknown> | InvalidCall)[],
  ): Promise<Map<number, Decided>> {
    const rejected = new Map<number, Decided>();
    const undecided: number[] = [];
    for (const [i, p] of prepared.entries()) {
      if (p.kind !== "ready" || !(await needsApproval(p))) continue;
      let decision = this.#decisions.get(p.call.id);
      if (decision === undefined && this.#handler)
        decision = await this.#handler(describe(p.call), state.signal);
      if (decision === undefined) undecided.push(i);
      else if (!decision) rejected.set(i, { status: "rejected", content: NOT_APPROVED });
    }
    if (undecided.length === 0) return rejected;
    const waiting = new Set(undecided);
    const pending: PendingCall[] = prepared.map((p, i) => ({
      call: p.call,
      state: waiting.has(i) ? "awaiting_approval" : "queued",
    }));
    if (!state.durable) {
      throw new ConfigError(
        "A tool needs approval but the run has no store to pause in: give the agent a store, or decide in-process with the run option onApproval",
      );
    }
    await state.durable.pause(state, pending);
    throw new ApprovalRequiredError(
      undecided.map((i) => describe((prepared[i] as ReadyCall<unknown>).call)),
      errorState(state),
    );
  }
}

/**
 * Decisions for `resume`, checked against the calls that wait for one. With `handled` (resume got
 * `onApproval`) a waiting call left out is decided by that handler; without it, every one must be.
 */
export function decisionsFor(
  pending: readonly PendingCall[],
  approve: readonly string[] = [],
  reject: readonly string[] = [],
  handled = false,
): Map<string, boolean> {
  const waiting = pending.filter((p) => p.state === "awaiting_approval").map((p) => p.call.id);
  const decisions = new Map<string, boolean>();
  for (const id of approve) decisions.set(id, true);
  for (const id of reject) {
    if (decisions.has(id)) throw new ConfigError(`Call ${id} is both approved and rejected`);
    decisions.set(id, false);
  }
  const unknown = [...decisions.keys()].filter((id) => !waiting.includes(id));
  if (unknown.length > 0)
    throw new ConfigError(
      `No call awaits approval with id ${unknown.join(", ")}; waiting: ${waiting.join(", ") || "none"}`,
    );
  const missing = handled ? [] : waiting.filter((id) => !decisions.has(id));
  if (missing.length > 0)
    throw new ConfigError(
      `Decide every waiting call: ${missing.join(", ")} need approve or reject (or pass onApproval to decide the rest)`,
    );
  return decisions;
}

async function needsApproval(ready: ReadyCall<unknown>): Promise<boolean> {
  const rule = ready.tool.needsApproval;
  if (typeof rule !== "function") return rule === true;
  try {
    return (await rule(ready.args as never)) === true;
  } catch {
    // A rule that cannot decide must not wave a call through.
    return true;
  }
}

function describe(call: ToolCall): PendingApproval {
  return { toolCallId: call.id, toolName: call.name, arguments: call.arguments };
}
