import { importOptional } from "../core/optional-dependency.js";
import { DBOS_SDK } from "./sdk.js";

type WfQueueModule = typeof import("@dbos-inc/dbos-sdk/internal/wfqueue");

/** How this process consumes the run queue. */
export interface LocalQueueLimits {
  /** Runs of the queue this process runs at once. */
  workerConcurrency: number;
  /** DBOS's base polling interval of the queue. */
  minPollingIntervalMs: number;
}

/**
 * Makes the run queue's limits this process's own. A DBOS 5.3 queue registered with
 * `DBOS.registerQueue` keeps its settings in one row of the system database, which every worker
 * re-reads each second: a worker's `workerConcurrency` would be whatever the last worker to start
 * wrote. DBOS's process-local queues win over that row in this process's dispatcher, so the run
 * queue is registered as one, with this worker's limit (and one run at a time per partition, the
 * same on every worker). Must be called before `DBOS.launch()`: the dispatcher picks its
 * process-local queues up when it starts. Uses DBOS internals (pinned version; see dbos-polling.ts).
 */
export async function claimQueueLocally(name: string, limits: LocalQueueLimits): Promise<void> {
  const load = () => import("@dbos-inc/dbos-sdk/internal/wfqueue");
  const wfqueue = (await importOptional(DBOS_SDK, load)) as WfQueueModule;
  const queue = wfqueue.registerInternalQueue(name, { ...limits, partitionConcurrency: 1 });
  // A worker started again in this process finds its earlier registration: take the new limits.
  queue.workerConcurrency = limits.workerConcurrency;
  queue.minPollingIntervalMs = limits.minPollingIntervalMs;
  queue.partitionConcurrency = 1;
}
