/**
 * A person's reply to a run that waits on its worker: decisions on calls waiting for approval,
 * answers to tools' questions. The same checks as for a run driven here (the caller's run, the
 * ids of the pause that waits now, once only, every waiting one replied to, an answer that fits
 * its form), then the reply goes to exactly the worker's wait the pause showed, never another:
 * a decision binds to the call and its validated arguments, answers to the wait's ticket. The
 * process that records the reply (once, in the log) sends it and follows the run on.
 */
import { bindsTo } from "../features/approval/approval-rule.js";
import type { ScaleClient } from "../scale/client.js";
import type { Decision } from "./approval-check.js";
import { checkDecisions } from "./approval-check.js";
import { refuse } from "./errors.js";
import { checkAnswers, type GivenAnswer } from "./questions.js";
import type { RunSlots } from "./run-slots.js";
import type { ScaleFollower } from "./scale-follow.js";
import { type ScaleSegment, scanScaleRun } from "./scale-segment.js";
import type { RunRecord, ServeLog } from "./serve-log.js";

/** What a reply needs: the log, the principals' run slots, this process's follower, the workers' client. */
export interface ReplyContext {
  log: ServeLog;
  slots: RunSlots;
  follower: ScaleFollower;
  client: ScaleClient;
}

/** Applies decisions to the run waiting for them on its worker, and follows it on. */
export async function decideOnWorker(
  ctx: ReplyContext,
  principal: string,
  decisions: readonly Decision[],
  chatId?: string,
): Promise<{ run: RunRecord; after: number }> {
  const { log, client } = ctx;
  const { run, records } = await checkDecisions(log, principal, decisions, chatId);
  // The worker must wait for exactly these calls now: a decision is never sent for anything else.
  const waiting = await client.pending(run.runId);
  const subject = (r: (typeof records)[number]) => ({
    runId: run.runId,
    toolCallId: r.toolCallId,
    toolName: r.toolName,
    arguments: r.validated,
  });
  if (!records.every((r) => waiting.some((w) => bindsTo(subject(r), w))))
    throw refuse.conflict("the run no longer waits for these calls");
  const state = await scanScaleRun(log, run);
  if (state.kind !== "paused") throw refuse.conflict("the run is no longer waiting");
  await recordOnce(ctx, principal, decisions, "these approvals were already decided");
  // Recorded once (one process won the decisions): this one sends them and follows the run on.
  const byId = new Map(records.map((r) => [r.approvalId, r]));
  for (const d of decisions) {
    const record = byId.get(d.approvalId);
    if (!record) continue;
    const { toolCallId, toolName, arguments: args } = subject(record);
    await client
      .approve(run.runId, { toolCallId, toolName, arguments: args }, d.approved)
      .catch((error: unknown) =>
        console.error(`glassloop serve: sending a decision to run ${run.runId} failed:`, error),
      );
  }
  return followOn(ctx, run, state.next);
}

/**
 * Answers the questions of a run waiting on its worker (checkAnswers: the caller's run, every
 * waiting question once, each answer fitting its form), and follows it on. The answers go to the
 * wait the pause showed (its ticket): refused (409) when the worker no longer waits there.
 */
export async function answerOnWorker(
  ctx: ReplyContext,
  principal: string,
  runId: string,
  answers: readonly GivenAnswer[],
): Promise<{ run: RunRecord; after: number }> {
  const { log, client } = ctx;
  const { run, byCall } = await checkAnswers(log, principal, runId, answers);
  const state = await scanScaleRun(log, run);
  const ticket = state.kind === "paused" ? state.next.answered : undefined;
  if (state.kind !== "paused" || ticket === undefined)
    throw refuse.conflict("the run is no longer waiting for these answers");
  const waiting = await client.questions(run.runId);
  if (waiting.length === 0 || waiting.some((w) => w.ticket !== ticket))
    throw refuse.conflict("the run no longer waits for these answers");
  await recordOnce(
    ctx,
    principal,
    answers.map((a) => ({ approvalId: a.questionId, approved: true })),
    "these questions were already answered",
  );
  // Recorded once: this process alone sends them, to that wait only.
  await client
    .answer(run.runId, byCall, { ticket })
    .catch((error: unknown) =>
      console.error(`glassloop serve: sending answers to run ${run.runId} failed:`, error),
    );
  return followOn(ctx, run, state.next);
}

/**
 * Takes a run slot and records the replies in the log, all or none: two processes racing get one
 * success and one 409 (`already`).
 */
async function recordOnce(
  ctx: ReplyContext,
  principal: string,
  replies: readonly Decision[],
  already: string,
): Promise<void> {
  ctx.slots.reserve(principal);
  try {
    if (!(await ctx.log.decide(replies))) throw refuse.conflict(already);
  } catch (error) {
    ctx.slots.release(principal);
    throw error;
  }
}

/** Claims the run for this process's follower and follows it through `next` (the slot is the follower's now). */
async function followOn(
  ctx: ReplyContext,
  run: RunRecord,
  next: ScaleSegment,
): Promise<{ run: RunRecord; after: number }> {
  const { log, follower } = ctx;
  await log.driveRun(run.runId, follower.id, follower.leaseUntil());
  const fresh = (await log.getRun(run.runId)) as RunRecord;
  follower.follow(fresh, next);
  return { run: fresh, after: fresh.lastSeq };
}
