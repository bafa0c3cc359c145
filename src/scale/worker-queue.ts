import { ConfigError } from "../core/errors.js";
import { importOptional } from "../core/optional-dependency.js";
import type { PgNamedQuery, PgResult } from "../store/postgres/pg-driver.js";
import { quoteIdent } from "../store/postgres/pg-migrations.js";
import { DBOS_SDK } from "./sdk.js";

type WfQueueModule = typeof import("@dbos-inc/dbos-sdk/internal/wfqueue");

/** How this process consumes the run queues. */
export interface LocalQueueLimits {
  /** Runs of both queues this process runs at once. */
  workerConcurrency: number;
  /** DBOS's base polling interval of each queue. */
  minPollingIntervalMs: number;
}

/**
 * The queue of runs without a session, beside the queue `name`. Runs of a session wait for each
 * other, so they go on `name`, a DBOS queue partitioned by session (one run at a time per
 * partition). A run without a session waits for nothing, and on a partitioned queue it would be a
 * partition of its own: DBOS's dequeue walks every partition key waiting, so each poll would cost
 * Postgres in proportion to the backlog. On a plain queue a poll takes the oldest runs.
 */
export function sessionlessQueue(name: string): string {
  return `${name}.sessionless`;
}

/** Where a run goes: a session's on `queue`, partitioned by its session; any other on `sessionlessQueue`. */
export function runQueue(
  queue: string,
  session: string | undefined,
): { queueName: string; queuePartitionKey?: string } {
  return session !== undefined
    ? { queueName: queue, queuePartitionKey: `session:${session}` }
    : { queueName: sessionlessQueue(queue) };
}

/** What this module needs of DBOS's queue dispatcher (internal; see dbos-polling.ts). */
interface Dispatcher {
  pollQueue(exec: Executor, queue: LocalQueue): Promise<boolean>;
}
interface Executor {
  systemDatabase: SystemDatabase;
}
/** DBOS's system database handle: its pool and schema are read defensively (see `mayHaveWaiting`). */
interface SystemDatabase {
  countRunningWorkflowsForQueue(name: string): number;
  pool?: unknown;
  schemaName?: unknown;
}
/** What `mayHaveWaiting` asks of the pool: node-postgres's `query`, with a named (prepared) statement. */
interface StatementPool {
  query(statement: PgNamedQuery): Promise<PgResult<unknown>>;
}
interface LocalQueue {
  name: string;
  workerConcurrency?: number;
  minPollingIntervalMs: number;
  partitionConcurrency?: number;
}

/**
 * Makes the run queues' limits this process's own: the session queue `name` and its
 * `sessionlessQueue`. A DBOS 5.3 queue registered with `DBOS.registerQueue` keeps its settings
 * in one row of the system database, which every worker re-reads each second: a worker's
 * `workerConcurrency` would be whatever the last worker to start wrote. DBOS's process-local
 * queues win over that row in this process's dispatcher, so both queues are registered as such.
 * DBOS limits a worker per queue; this worker's one limit covers both: their polls take turns,
 * and each may take only what the other leaves. Must be called before `DBOS.launch()`: the
 * dispatcher picks its process-local queues up when it starts. Uses DBOS internals (pinned
 * version; see dbos-polling.ts).
 */
export async function claimQueueLocally(name: string, limits: LocalQueueLimits): Promise<void> {
  const load = () => import("@dbos-inc/dbos-sdk/internal/wfqueue");
  const wfqueue = (await importOptional(DBOS_SDK, load)) as WfQueueModule;
  const register = (queueName: string, partitioned: boolean): LocalQueue => {
    const settings = { ...limits, ...(partitioned && { partitionConcurrency: 1 }) };
    const queue = wfqueue.registerInternalQueue(queueName, settings) as unknown as LocalQueue;
    // A worker started again in this process finds its earlier registration: take the new limits.
    queue.workerConcurrency = limits.workerConcurrency;
    queue.minPollingIntervalMs = limits.minPollingIntervalMs;
    if (partitioned) queue.partitionConcurrency = 1;
    return queue;
  };
  const sessions = register(name, true);
  const sessionless = register(sessionlessQueue(name), false);
  shareLimit(
    wfqueue.wfQueueRunner as unknown as Dispatcher,
    [sessions, sessionless],
    limits.workerConcurrency,
  );
}

/** The queues sharing one worker limit, each with its partner; set again by each claim. */
const pairs = new Map<string, { other: string; limit: number }>();
/** The dispatcher whose polls consult `pairs` (DBOS has one per process). */
let wrapped: Dispatcher | undefined;

/**
 * Holds the runs of `queues` together to `limit` at once: before a poll of one, its limit becomes
 * what the other's running runs leave, and polls of the two take turns (each claims and starts its
 * runs before the next one counts them), so two polls at once cannot both fill the worker. A queue
 * with no run waiting is not polled at all (see `mayHaveWaiting`).
 */
function shareLimit(runner: Dispatcher, [a, b]: [LocalQueue, LocalQueue], limit: number): void {
  pairs.set(a.name, { other: b.name, limit });
  pairs.set(b.name, { other: a.name, limit });
  if (wrapped === runner) return;
  // DBOS is pinned; a DBOS without this internal would let the two queues fill the worker twice.
  if (typeof runner.pollQueue !== "function")
    throw new ConfigError(
      "This DBOS has no queue dispatcher glassloop can share a worker's limit through: install the @dbos-inc/dbos-sdk version glassloop pins",
    );
  wrapped = runner;
  const poll = runner.pollQueue.bind(runner);
  let turn: Promise<unknown> = Promise.resolve();
  runner.pollQueue = (exec, queue) => {
    const pair = pairs.get(queue.name);
    if (!pair) return poll(exec, queue);
    const next = turn.then(async () => {
      const running = exec.systemDatabase;
      queue.workerConcurrency = Math.max(0, pair.limit - running.countRunningWorkflowsForQueue(pair.other));
      // Full: nothing to claim, so no claim transaction either.
      if (queue.workerConcurrency <= running.countRunningWorkflowsForQueue(queue.name)) return false;
      return (await mayHaveWaiting(running, queue.name)) ? poll(exec, queue) : false;
    });
    turn = next.catch(() => {});
    return next;
  };
}

/**
 * Whether queue `name` may have a run waiting: one indexed read (a prepared statement, planned once
 * per connection) instead of DBOS's dequeue. DBOS's dequeue of an empty queue is a transaction of
 * four round trips, and on the partitioned session queue its recursive sweep costs the server about
 * 2 ms of planning each time: an idle worker polls both queues every `pollMs`. The read asks less
 * than the dequeue does (any application, any version), so it may send a poll that finds nothing,
 * never hold back one that would find a run; a run enqueued just after it is taken at the next
 * poll, as one enqueued just after a dequeue would be. Where DBOS's handle lacks what it needs, or
 * the read fails, the poll goes ahead and DBOS handles the database as it does.
 */
export async function mayHaveWaiting(db: SystemDatabase, name: string): Promise<boolean> {
  const { pool, schemaName } = db;
  if (typeof schemaName !== "string" || !isStatementPool(pool)) return true;
  try {
    const { rowCount } = await pool.query({
      // A statement's name is per connection and must always carry the same text: the schema is in both.
      name: `glassloop_queue_waiting_${schemaName}`,
      text: `select 1 from ${quoteIdent(schemaName)}.workflow_status where queue_name = $1 and status = 'ENQUEUED' limit 1`,
      values: [name],
    });
    return rowCount !== 0;
  } catch {
    return true;
  }
}

/** Whether DBOS's `pool` has node-postgres's `query` (its handle's fields are not public API). */
function isStatementPool(pool: unknown): pool is StatementPool {
  return typeof (pool as StatementPool | undefined)?.query === "function";
}
