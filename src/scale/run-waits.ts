import { type ApprovalTarget, type WaitingApproval, waitingFor } from "../features/approval/approval-rule.js";
import { APPROVAL_WAITING_EVENT, type ApprovalMessage, approvalTopic } from "./approval-waits.js";
import {
  answersMessage,
  answerTopic,
  type CallAnswer,
  QUESTIONS_WAITING_EVENT,
  type WaitingQuestion,
} from "./questions.js";
import type { DbosClient } from "./sdk.js";

// What waits for a person in a queued run (calls for a decision, tools' questions for an answer),
// read and answered from outside the workers: each reply is checked against what waits now, before
// anything is sent, so it can never be read by a later wait.

/** The calls of run `runId` waiting for a decision now: what `approveCall` can decide. */
export async function pendingApprovals(dbos: DbosClient, runId: string): Promise<WaitingApproval[]> {
  const waiting = await dbos.getEvent<WaitingApproval[]>(runId, APPROVAL_WAITING_EVENT, {
    timeoutSeconds: 0,
  });
  return Array.isArray(waiting) ? waiting : [];
}

/**
 * Sends the decision on the call of run `runId` that `call` names and that waits now; refused
 * with `ApprovalNotWaitingError` (and not sent) when none does.
 */
export async function approveCall(
  dbos: DbosClient,
  runId: string,
  call: ApprovalTarget,
  approved: boolean,
): Promise<void> {
  const waiting = waitingFor(runId, await pendingApprovals(dbos, runId), call);
  const message: ApprovalMessage = { approved, ticket: waiting.ticket };
  // The idempotency key makes a repeated answer to this one wait (a retried request) count once.
  await dbos.send(runId, message, approvalTopic(waiting.ticket), `approval:${waiting.ticket}`);
}

/** The questions of run `runId` waiting for the person's answer now: what `answerQuestions` can answer. */
export async function waitingQuestions(dbos: DbosClient, runId: string): Promise<WaitingQuestion[]> {
  const waiting = await dbos.getEvent<WaitingQuestion[]>(runId, QUESTIONS_WAITING_EVENT, {
    timeoutSeconds: 0,
  });
  return Array.isArray(waiting) ? waiting : [];
}

/**
 * Sends `answers` to the questions waiting in run `runId`, once checked against them (see
 * `answersMessage`); with `ticket`, only to the wait it names.
 */
export async function answerQuestions(
  dbos: DbosClient,
  runId: string,
  answers: readonly CallAnswer[],
  ticket?: string,
): Promise<void> {
  const message = answersMessage(runId, await waitingQuestions(dbos, runId), answers, ticket);
  // One wait is answered once: a repeated request (a retry) counts once.
  await dbos.send(runId, message, answerTopic(message.ticket), `answers:${message.ticket}`);
}
