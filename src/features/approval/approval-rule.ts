import { createHash } from "node:crypto";
import { GlassloopError } from "../../core/errors.js";

/**
 * The one approval rule, for every engine (the in-process gate and its SQLite resume, the DBOS
 * workers of `glassloop/scale`): a decision binds to the run, the call id, the tool and the exact
 * validated arguments of one wait; a decision with nothing waiting for it is refused, never kept
 * for later. Before, a scale-out approval was `{approved}` on a topic named by the call id alone,
 * and DBOS keeps unread messages: an approval sent while `call_1` = "deploy staging" needed none
 * was consumed by a later `call_1` = "deploy PRODUCTION".
 */

/** What one decision is about: the call as the person saw it. */
export interface ApprovalSubject {
  runId: string;
  toolCallId: string;
  toolName: string;
  /** The arguments after schema validation (JSON text): exactly what the tool gets if approved. */
  arguments: string;
}

/** A call waiting for a decision now, with the ticket its decision must carry. */
export interface WaitingApproval extends ApprovalSubject {
  /** Names this one wait: the same call asked again (a reused id, a replay of another turn) gets another. */
  ticket: string;
}

/**
 * What a decider names: a call id alone (then it binds to the call waiting under that id now), or
 * the call as shown (id, tool and validated arguments: then it binds only if exactly that waits).
 */
export type ApprovalTarget = string | Pick<ApprovalSubject, "toolCallId" | "toolName" | "arguments">;

/** A decision for which nothing waits: refused, and not kept for a later call. */
export class ApprovalNotWaitingError extends GlassloopError {
  readonly runId: string;
  readonly toolCallId: string;
  /** What waits in the run now (often nothing). */
  readonly waiting: readonly ApprovalSubject[];
  constructor(runId: string, target: ApprovalTarget, waiting: readonly ApprovalSubject[]) {
    const id = typeof target === "string" ? target : target.toolCallId;
    const asked = typeof target === "string" ? id : `${id} (${target.toolName} ${target.arguments})`;
    const now = waiting.map((w) => `${w.toolCallId} (${w.toolName} ${w.arguments})`).join(", ");
    super(
      "approval_not_waiting",
      `No call of run ${runId} waits for a decision as ${asked}; waiting: ${now || "none"}. ` +
        "A decision is for the call waiting now and is never kept for a later one.",
    );
    this.runId = runId;
    this.toolCallId = id;
    this.waiting = waiting.map(({ runId, toolCallId, toolName, arguments: args }) => ({
      runId,
      toolCallId,
      toolName,
      arguments: args,
    }));
  }
}

/** True when `decision` is about exactly `waiting`: same run, call id, tool and validated arguments. */
export function bindsTo(decision: ApprovalSubject, waiting: ApprovalSubject): boolean {
  return (
    decision.runId === waiting.runId &&
    decision.toolCallId === waiting.toolCallId &&
    decision.toolName === waiting.toolName &&
    decision.arguments === waiting.arguments
  );
}

/**
 * The ticket of one wait: a digest of the subject and `wait`, a number unique to this wait within
 * the run and the same on a replay of it (the DBOS operation count). A decision sent for it can
 * only ever be read by that wait.
 */
export function approvalTicket(subject: ApprovalSubject, wait: number): string {
  return createHash("sha256")
    .update(
      JSON.stringify([
        "glassloop.approval.v2",
        subject.runId,
        subject.toolCallId,
        subject.toolName,
        subject.arguments,
        wait,
      ]),
    )
    .digest("hex");
}

/** The waiting call `target` names, or an `ApprovalNotWaitingError`; `target` as a bare id must be unambiguous. */
export function waitingFor<T extends ApprovalSubject>(
  runId: string,
  waiting: readonly T[],
  target: ApprovalTarget,
): T {
  const matches = waiting.filter((w) =>
    typeof target === "string"
      ? w.runId === runId && w.toolCallId === target
      : bindsTo({ runId, ...target }, w),
  );
  const [only] = matches;
  if (only === undefined || matches.length > 1) throw new ApprovalNotWaitingError(runId, target, waiting);
  return only;
}
