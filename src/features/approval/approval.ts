import { ConfigError, RunError, type RunErrorState } from "../../core/errors.js";
import type { ToolCall } from "../../core/vocabulary/messages.js";
import type { ToolOutcome } from "../../core/vocabulary/outcome.js";
import type { InvalidCall, ReadyCall } from "../../loop/environment/environment.js";
import type { AnsweredCalls, RunHooks, RunState } from "../../loop/hooks.js";
import { errorState } from "../../loop/run-state.js";
import type { PendingCall } from "../../store/store.js";
import { argumentsText, droppedKeys } from "./approval-args.js";
import { type ApprovalSubject, bindsTo, waitingFor } from "./approval-rule.js";

/** A tool call waiting for a human decision. */
export interface PendingApproval {
  toolCallId: string;
  toolName: string;
  /**
   * The arguments as validated by the tool's schema (JSON text): exactly what the tool will get if
   * approved, to show the person deciding.
   */
  arguments: string;
}

/**
 * A decision `resume` was given for one waiting call. It applies to that call only: same id, same
 * tool, same raw and validated arguments, in the resumed turn; never to a later call that reuses the id.
 */
export interface ApprovalDecision {
  call: ToolCall;
  /** The validated arguments the decision was made on (absent for runs paused before they were stored). */
  validated?: string;
  approved: boolean;
}

/** Decides a call in the same process (a terminal prompt, a UI): true runs it, false rejects it. */
export type ApprovalHandler = (call: PendingApproval, signal: AbortSignal) => boolean | Promise<boolean>;

/** Stores a run paused for approval with its turn's calls as they wait (durability does it). */
export type PauseRun = (state: RunState<unknown>, pending: PendingCall[]) => Promise<void>;

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

/**
 * Gates the calls of a turn whose tool needs approval: each is approved or rejected by the
 * decisions given to `resume` (only in the resumed turn, only for the exact call decided), else by
 * the run's handler, else the run pauses before any call of the turn runs (so a decision never
 * races a half-run turn). Arguments with keys the tool's schema does not know are refused first.
 */
export class ApprovalGate {
  #decisions: ApprovalDecision[];
  readonly #handler: ApprovalHandler | undefined;
  readonly #pause: PauseRun | undefined;

  /** `pause` stores the paused turn (durability's); without it a call left undecided is a ConfigError. */
  constructor(options: {
    decisions?: readonly ApprovalDecision[];
    handler?: ApprovalHandler;
    pause?: PauseRun;
  }) {
    this.#decisions = [...(options.decisions ?? [])];
    this.#handler = options.handler;
    this.#pause = options.pause;
  }

  /** The gate as a run feature: it reviews each turn before any of its calls runs. */
  hooks(): RunHooks {
    return {
      beforeTools: (state, _step, prepared, answered) => this.review(state, prepared, answered),
    };
  }

  /** Rejected calls' results by index; throws ApprovalRequiredError (after checkpointing) to pause. */
  async review(
    state: RunState<unknown>,
    prepared: readonly (ReadyCall<unknown> | InvalidCall)[],
    answered: AnsweredCalls = [],
  ): Promise<Map<number, ToolOutcome>> {
    // Resume's decisions are for the paused turn, which is the first one reviewed; later turns ask again.
    const decisions = this.#decisions;
    this.#decisions = [];
    const rejected = new Map<number, ToolOutcome>();
    const undecided: number[] = [];
    const shown = new Map<number, string>();
    for (const [i, p] of prepared.entries()) {
      // A call of a resumed turn that already ran (approved before a later pause) is not asked again.
      if (p.kind !== "ready" || answered[i] !== undefined || !(await needsApproval(p))) continue;
      const unknown = unknownKeys(p);
      if (unknown.length > 0) {
        rejected.set(i, {
          status: "invalid",
          content:
            `Invalid arguments for ${p.call.name}: unknown ${unknown.length === 1 ? "key" : "keys"} ${unknown.join(", ")}. ` +
            "This tool needs approval, so send exactly the arguments its schema defines and nothing else.",
        });
        continue;
      }
      const text = argumentsText(p.args);
      shown.set(i, text);
      let decision = takeDecision(decisions, state.runId, p.call, text);
      if (decision === undefined && this.#handler)
        decision = await this.#handler(describe(p.call, text), state.stop.signal);
      if (decision === undefined) undecided.push(i);
      else if (!decision) rejected.set(i, { status: "rejected", content: NOT_APPROVED });
    }
    if (undecided.length === 0) return rejected;
    const waiting = new Set(undecided);
    const pending: PendingCall[] = prepared.map((p, i) => {
      if (waiting.has(i))
        return { call: p.call, state: "awaiting_approval", validated: shown.get(i) as string };
      // An outcome the resumed turn already has stays with it: that call must not run again.
      const outcome = answered[i];
      return outcome ? { call: p.call, state: "done", outcome } : { call: p.call, state: "queued" };
    });
    if (!this.#pause) {
      throw new ConfigError(
        "A tool needs approval but the run has no store to pause in: give the agent a store, or decide in-process with the run option onApproval",
      );
    }
    await this.#pause(state, pending);
    throw new ApprovalRequiredError(
      undecided.map((i) => describe(prepared[i]?.call as ToolCall, shown.get(i) as string)),
      errorState(state),
    );
  }
}

/**
 * Removes and returns the decision made on exactly this call, if any: the one rule of
 * approval-rule.ts (run, id, tool, validated arguments), and here also the model's raw text.
 */
function takeDecision(
  decisions: ApprovalDecision[],
  runId: string,
  call: ToolCall,
  validated: string,
): boolean | undefined {
  const waiting = subjectOf(runId, call, validated);
  const index = decisions.findIndex(
    (d) =>
      d.call.arguments === call.arguments &&
      // A run paused before validated arguments were stored binds on the raw text alone.
      bindsTo(subjectOf(runId, d.call, d.validated ?? validated), waiting),
  );
  if (index < 0) return undefined;
  const [decision] = decisions.splice(index, 1);
  return decision?.approved;
}

/**
 * Decisions for `resume`, checked against the calls that wait for one and bound to each call's
 * id, tool and arguments. With `handled` (resume got `onApproval`) a waiting call left out is
 * decided by that handler; without it, every one must be.
 */
export function decisionsFor(
  runId: string,
  pending: readonly PendingCall[],
  approve: readonly string[] = [],
  reject: readonly string[] = [],
  handled = false,
): ApprovalDecision[] {
  const waiting = pending.filter((p) => p.state === "awaiting_approval");
  const ids = waiting.map((p) => p.call.id);
  const chosen = new Map<string, boolean>();
  for (const id of approve) chosen.set(id, true);
  for (const id of reject) {
    if (chosen.has(id)) throw new ConfigError(`Call ${id} is both approved and rejected`);
    chosen.set(id, false);
  }
  // The one rule: a decision for a call that does not wait is refused (ApprovalNotWaitingError).
  const subjects = waiting.map((p) => subjectOf(runId, p.call, p.validated ?? p.call.arguments));
  for (const id of chosen.keys()) waitingFor(runId, subjects, id);
  const missing = handled ? [] : ids.filter((id) => !chosen.has(id));
  if (missing.length > 0)
    throw new ConfigError(
      `Decide every waiting call: ${missing.join(", ")} need approve or reject (or pass onApproval to decide the rest)`,
    );
  return waiting.flatMap((p) => {
    const approved = chosen.get(p.call.id);
    if (approved === undefined) return [];
    return [{ call: p.call, approved, ...(p.validated !== undefined && { validated: p.validated }) }];
  });
}

/** Keys of the model's arguments that validation dropped (the call was valid only without them). */
function unknownKeys(ready: ReadyCall<unknown>): string[] {
  let raw: unknown;
  try {
    raw = ready.call.arguments.trim() === "" ? {} : JSON.parse(ready.call.arguments);
  } catch {
    return [];
  }
  return droppedKeys(raw, ready.args);
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

function subjectOf(runId: string, call: ToolCall, validated: string): ApprovalSubject {
  return { runId, toolCallId: call.id, toolName: call.name, arguments: validated };
}

function describe(call: ToolCall, validated: string): PendingApproval {
  return { toolCallId: call.id, toolName: call.name, arguments: validated };
}
