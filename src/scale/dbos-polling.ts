import { importOptional } from "../core/optional-dependency.js";
import { DBOS_SDK } from "./sdk.js";

type WfQueueModule = typeof import("@dbos-inc/dbos-sdk/internal/wfqueue");
type UtilsModule = typeof import("@dbos-inc/dbos-sdk/internal/utils");

/** How far DBOS's queue polling may back off, as a multiple of the configured interval. */
export const POLL_BACKOFF_CAP = 4;

/**
 * How often the internal queue is polled at most: DBOS's own default. Recovery keeps a run on
 * the queue it was enqueued on (DBOS sets the internal queue only where a workflow had none), and
 * every run is enqueued on the worker's queue, so a dead worker's runs come back there, polled
 * at `pollMs`. The internal queue only gets what DBOS's own tools resume or fork: polling it as
 * often as the run queue cost an idle worker a transaction per `pollMs` for nothing.
 */
export const INTERNAL_POLL_MS = 1_000;

/**
 * Keeps DBOS's queue polling within a bound, which the failover time depends on. DBOS 5.3 doubles
 * every queue's interval on lock contention between workers, up to two minutes; `clamp` (called
 * on the worker's adoption timer) caps each queue's current interval at POLL_BACKOFF_CAP times
 * its own. The internal queue is registered before launch with INTERNAL_POLL_MS (or `pollMs`,
 * if that is longer).
 */
export async function boundPolling(pollMs: number): Promise<{ clamp(): void }> {
  const load = () =>
    Promise.all([import("@dbos-inc/dbos-sdk/internal/wfqueue"), import("@dbos-inc/dbos-sdk/internal/utils")]);
  const [wfqueue, utils] = (await importOptional(DBOS_SDK, load)) as [WfQueueModule, UtilsModule];
  const internal = wfqueue.registerInternalQueue(utils.INTERNAL_QUEUE_NAME, {
    minPollingIntervalMs: Math.max(pollMs, INTERNAL_POLL_MS),
  });
  // A worker started again in this process finds its earlier registration: take the new interval.
  internal.minPollingIntervalMs = Math.max(pollMs, INTERNAL_POLL_MS);
  // DBOS's per-queue polling state is not public; read defensively, so a DBOS that changed it
  // only loses the cap, never the worker.
  const states = (
    wfqueue.wfQueueRunner as unknown as {
      states?: Map<
        string,
        { currentPollingMs?: number; nextPollAt?: number; queue?: { minPollingIntervalMs?: number } }
      >;
    }
  ).states;
  return {
    clamp() {
      if (!(states instanceof Map)) return;
      const now = Date.now();
      for (const state of states.values()) {
        const base = state.queue?.minPollingIntervalMs ?? pollMs;
        const cap = base * POLL_BACKOFF_CAP;
        if (typeof state.currentPollingMs !== "number" || state.currentPollingMs <= cap) continue;
        state.currentPollingMs = cap;
        if (typeof state.nextPollAt === "number") state.nextPollAt = Math.min(state.nextPollAt, now + cap);
      }
    },
  };
}
