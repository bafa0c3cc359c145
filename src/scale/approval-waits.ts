import type { PendingApproval } from "../features/approval/approval.js";
import { approvalTicket, type WaitingApproval } from "../features/approval/approval-rule.js";
import type { RunSteps } from "./run-steps.js";

/**
 * The topic a decision for one wait is sent on (`client.approve`): named by the wait's ticket
 * (features/approval/approval-rule.ts), never by the call id alone, so a decision that arrives
 * when that wait is over is read by nothing, whatever reuses the call id later.
 */
export const approvalTopic = (ticket: string) => `glassloop.approval:${ticket}`;

/** The DBOS event key under which a run publishes the calls that wait for a decision now. */
export const APPROVAL_WAITING_EVENT = "glassloop.approval.waiting";

/** A decision as sent to a waiting run: for the wait its ticket names, and no other. */
export interface ApprovalMessage {
  approved: boolean;
  ticket: string;
}

/**
 * The calls of one run that wait for `client.approve`, from any process, durably. Each wait gets
 * a ticket bound to the run, the call id, the tool, the validated arguments and the wait itself
 * (the one rule of features/approval/approval-rule.ts); the run publishes what waits, so a
 * client refuses a decision for anything else, and the wait reads only its own ticket's topic.
 */
export class ApprovalWaits {
  readonly #steps: RunSteps;
  readonly #timeoutSeconds: number;
  readonly #waiting = new Map<string, WaitingApproval>();

  constructor(steps: RunSteps, timeoutSeconds: number) {
    this.#steps = steps;
    this.#timeoutSeconds = timeoutSeconds;
  }

  /** Waits for the decision on `call`, published as waiting meanwhile; no decision in time is a rejection. */
  async decide(call: PendingApproval): Promise<boolean> {
    const subject = {
      runId: this.#steps.runId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      arguments: call.arguments,
    };
    const ticket = approvalTicket(subject, this.#steps.ops);
    this.#waiting.set(ticket, { ...subject, ticket });
    await this.#publish();
    let answer: ApprovalMessage | null;
    try {
      answer = await this.#steps.recv<ApprovalMessage>(approvalTopic(ticket), this.#timeoutSeconds);
    } finally {
      this.#waiting.delete(ticket);
    }
    await this.#publish();
    // The topic is the ticket's; checking the message's own ticket too costs nothing.
    return answer?.approved === true && answer.ticket === ticket;
  }

  #publish(): Promise<void> {
    return this.#steps.setEvent(APPROVAL_WAITING_EVENT, [...this.#waiting.values()]);
  }
}
