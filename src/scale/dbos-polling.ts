import { importOptional } from "../core/optional-dependency.js";
import { DBOS_SDK } from "./sdk.js";

type WfQueueModule = typeof import("@dbos-inc/dbos-sdk/internal/wfqueue");
type UtilsModule = typeof import("@dbos-inc/dbos-sdk/internal/utils");

/** How far DBOS's queue polling may back off, as a multiple of the configured interval. */
export const POLL_BACKOFF_CAP = 4;

/**
 * Keeps DBOS's queue polling within a bound, which the failover time depends on. Two things in
 * DBOS 5.3 would stretch it: its internal queue (where recovery puts a dead worker's runs) polls
 * every second by default, and every queue's interval doubles on lock contention between
 * workers, up to two minutes. So the internal queue is registered before launch with the
 * worker's interval, and `clamp` (called on the worker's adoption timer) caps each queue's
 * current interval at POLL_BACKOFF_CAP times it.
 */
export async function boundPolling(pollMs: number): Promise<{ clamp(): void }> {
  const load = () =>
    Promise.all([import("@dbos-inc/dbos-sdk/internal/wfqueue"), import("@dbos-inc/dbos-sdk/internal/utils")]);
  const [wfqueue, utils] = (await importOptional(DBOS_SDK, load)) as [WfQueueModule, UtilsModule];
  wfqueue.registerInternalQueue(utils.INTERNAL_QUEUE_NAME, { minPollingIntervalMs: pollMs });
  const cap = pollMs * POLL_BACKOFF_CAP;
  // DBOS's per-queue polling state is not public; read defensively, so a DBOS that changed it
  // only loses the cap, never the worker.
  const states = (
    wfqueue.wfQueueRunner as unknown as {
      states?: Map<string, { currentPollingMs?: number; nextPollAt?: number }>;
    }
  ).states;
  return {
    clamp() {
      if (!(states instanceof Map)) return;
      const now = Date.now();
      for (const state of states.values()) {
        if (typeof state.currentPollingMs !== "number" || state.currentPollingMs <= cap) continue;
        state.currentPollingMs = cap;
        if (typeof state.nextPollAt === "number") state.nextPollAt = Math.min(state.nextPollAt, now + cap);
      }
    },
  };
}
