import { driverGone } from "./run-recovery.js";
import type { RunSlots } from "./run-slots.js";
import type { ScaleFollower } from "./scale-follow.js";
import { scanScaleRun } from "./scale-segment.js";
import type { RunRecord, ServeLog } from "./serve-log.js";

/**
 * Follows on the runs on scale-out workers whose follower is gone (this process's previous life,
 * another server that died or handed them over): each is claimed in the log (one server wins),
 * then read from the log alone to see where it stands. A run still going is followed from its
 * next segment; one paused for approval waits again; one its worker ended is recorded ended.
 */
export async function recoverScaleRuns(
  log: ServeLog,
  follower: ScaleFollower | undefined,
  slots: RunSlots,
  stopped: () => boolean,
): Promise<void> {
  if (!follower) return;
  for (const run of await log.listRunning()) {
    if (stopped()) return;
    if (follower.has(run.runId) || !driverGone(run, follower.id, Date.now())) continue;
    if (!(await log.takeOverRun(run.runId, follower.id, follower.leaseUntil(), run.driver))) continue;
    const taken = (await log.getRun(run.runId)) as RunRecord;
    const state = await scanScaleRun(log, taken);
    if (state.kind === "open") {
      slots.add(taken.principal);
      follower.follow(taken, state.segment);
    } else if (state.kind === "paused") {
      await log.setRunStatus(taken.runId, "awaiting_approval", taken.usage, follower.id);
    } else {
      await log.releaseChat(taken.principal, taken.chatId, taken.runId, follower.id);
      await log.setRunStatus(taken.runId, state.status, taken.usage, follower.id);
    }
  }
}
