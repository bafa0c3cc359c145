import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { ConfigError } from "../core/errors.js";
import type { RedactionOptions } from "../core/redact.js";
import { scrubberFor } from "../core/sink.js";
import { PostgresStore } from "../store/postgres/postgres-store.js";
import { redactingStore } from "../store/redacting-store.js";
import type { WorkerModule } from "./agents.js";
import { boundPolling, POLL_BACKOFF_CAP } from "./dbos-polling.js";
import { claimDeadWorkers, WorkerLease } from "./lease.js";
import { openScaleDb, SCALE_SCHEMA, whileLocked } from "./scale-db.js";
import { dbosSystemUrl, loadDbos, loadDbosExecutor } from "./sdk.js";
import { claimQueueLocally, sessionlessQueue } from "./worker-queue.js";
import { RUN_WORKFLOW, runWorkflow } from "./workflow.js";

/** The queue runs are enqueued on unless told otherwise. */
export const DEFAULT_QUEUE = "glassloop";
/**
 * The application version every worker runs under unless told otherwise. DBOS recovers a run only
 * on a worker of the version that started it, so it is pinned: bump it (or pass `version`) when
 * a change alters the steps a run takes, and drain the old workers (docs/scale-out.md). Version 2:
 * a model step's output is one JSON string (version 1 workers cannot replay it), and the run's
 * end is no step.
 */
export const DEFAULT_VERSION = "glassloop-scale-2";

/** The Postgres store's schema (run records, sessions) when `storeSchema` is not given. */
export const DEFAULT_STORE_SCHEMA = "glassloop";

/** Where the scale-out tables live and how the workers find each other. */
export interface ScaleConnection {
  /** `postgres://…`; default `GLASSLOOP_POSTGRES_URL`. DBOS's tables, glassloop's and the store's share it. */
  url?: string;
  /** DBOS's application name: workers and clients of one application share it (default `glassloop`). */
  appName?: string;
  /** The schema of the worker leases and run events (default `glassloop_scale`). */
  scaleSchema?: string;
  /** The Postgres store's schema, for run records and sessions (default `glassloop`). */
  storeSchema?: string;
  /** DBOS's system schema (default `dbos`). */
  dbosSchema?: string;
}

/** A worker's settings. */
export interface WorkerOptions extends ScaleConnection {
  /** The agents this worker runs. */
  module: WorkerModule;
  /** This worker's executor id, unique among live workers (default: host, pid and a random suffix). */
  id?: string;
  /** The queue to consume (default `glassloop`). */
  queue?: string;
  /** Runs at once on this worker (default 4); each worker of a queue has its own. */
  concurrency?: number;
  /** See DEFAULT_VERSION. */
  version?: string;
  /** A worker silent for this long is dead and its runs are adopted (default 15,000 ms). */
  leaseMs?: number;
  /** How often a worker looks for dead workers (default 3,000 ms). */
  adoptEveryMs?: number;
  /** How often the queue is polled for new runs (default 1,000 ms). */
  pollMs?: number;
  /** How long a call that needs approval waits before it counts as rejected (default one day). */
  approvalTimeoutSeconds?: number;
  /** What happens when this worker loses its lease (default: a message on stderr, then exit code 75). */
  onFenced?: (reason: string) => void;
  /**
   * What runs are scrubbed of before anything leaves the worker (step outputs, the workflow's
   * output, run events, the store): default this process's environment, whose credential-named
   * variables (API keys) and URL credentials are secrets, plus every credential shape.
   */
  redaction?: RedactionOptions;
  /** DBOS's log level (default `warn`). */
  logLevel?: "debug" | "info" | "warn" | "error";
}

/** A running worker. */
export interface Worker {
  readonly executorId: string;
  readonly queue: string;
  /** Stops taking runs, waits up to `graceMs` for the runs in progress, and gives its id up. */
  stop(graceMs?: number): Promise<void>;
}

let started = false;

/**
 * The failover bound of a worker's settings: the lease running out, one adoption period, and one
 * queue poll at its longest backoff (see dbos-polling.ts). Defaults: 15 + 3 + 4 = 22 s.
 */
export function failoverBoundMs(options: Pick<WorkerOptions, "leaseMs" | "adoptEveryMs" | "pollMs">): number {
  return (
    (options.leaseMs ?? 15_000) +
    (options.adoptEveryMs ?? 3_000) +
    (options.pollMs ?? 1_000) * POLL_BACKOFF_CAP
  );
}

/**
 * Starts a worker in this process: claims its id (refused while a live worker holds it), launches
 * DBOS with the run workflow, consumes the queue, renews its lease, and adopts the runs of workers
 * whose lease ran out. One worker per process: DBOS runs one executor per process.
 */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  if (started) throw new ConfigError("This process already runs a worker: DBOS has one executor per process");
  const url = options.url ?? process.env.GLASSLOOP_POSTGRES_URL;
  if (url === undefined || url === "")
    throw new ConfigError("A worker needs Postgres: pass { url } or set GLASSLOOP_POSTGRES_URL");
  const leaseMs = positive(options.leaseMs ?? 15_000, "leaseMs");
  const adoptEveryMs = positive(options.adoptEveryMs ?? 3_000, "adoptEveryMs");
  const pollMs = positive(options.pollMs ?? 1_000, "pollMs");
  const concurrency = positive(options.concurrency ?? 4, "concurrency");
  const executorId = options.id ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  const queue = options.queue ?? DEFAULT_QUEUE;
  // Loaded first: without DBOS, the error names the command that installs it (and pg).
  const dbos = await loadDbos();
  started = true;
  const db = await openScaleDb(url, options.scaleSchema ?? SCALE_SCHEMA);
  let store: PostgresStore | undefined;
  let lease: WorkerLease | undefined;
  try {
    store = await PostgresStore.connect({ url, schema: options.storeSchema ?? DEFAULT_STORE_SCHEMA });
    const scrubber = scrubberFor(process.env, options.redaction);
    const onFenced =
      options.onFenced ??
      ((reason: string) => {
        process.stderr.write(`glassloop worker: ${reason}; stopping so the run's new owner alone runs it\n`);
        process.exit(75);
      });
    const { DBOS } = dbos;
    await whileLocked(db, () =>
      DBOS.migrate(url, { ...(options.dbosSchema !== undefined && { schemaName: options.dbosSchema }) }),
    );
    // The id is claimed after the slow imports (its lease starts ticking now) and before DBOS launches: launching recovers the id's pending runs, which
    // must never happen while another live worker runs them.
    lease = await WorkerLease.claim(
      db.pool,
      executorId,
      { ttlMs: leaseMs, renewMs: Math.max(50, Math.floor(leaseMs / 3)) },
      onFenced,
    );
    DBOS.setConfig({
      name: options.appName ?? "glassloop",
      systemDatabaseUrl: dbosSystemUrl(url),
      ...(options.dbosSchema !== undefined && { systemDatabaseSchemaName: options.dbosSchema }),
      executorID: executorId,
      applicationVersion: options.version ?? DEFAULT_VERSION,
      logLevel: options.logLevel ?? "warn",
      enablePatching: true,
    });
    const polling = await boundPolling(pollMs);
    await claimQueueLocally(queue, { workerConcurrency: concurrency, minPollingIntervalMs: pollMs });
    DBOS.registerWorkflow(
      runWorkflow({
        dbos,
        module: options.module,
        db,
        // The runs and sessions tables are a sink too: the store scrubs every write.
        store: redactingStore(store, scrubber),
        scrubber,
        executorId,
        fence: lease,
        approvalTimeoutSeconds: options.approvalTimeoutSeconds ?? 86_400,
      }),
      { name: RUN_WORKFLOW },
    );
    await DBOS.launch();
    // The queue's row, for DBOS's tools; this worker dispatches by its own settings (see
    // claimQueueLocally), so the row holds no worker limit. Runs of one session wait for each
    // other: one at a time per partition (the session, or the run itself when it has none).
    await DBOS.registerQueue(queue, {
      partitionConcurrency: 1,
      minPollingIntervalMs: pollMs,
      onConflict: "always_update",
    });
    // Runs without a session wait for nothing: a plain queue (see sessionlessQueue).
    await DBOS.registerQueue(sessionlessQueue(queue), {
      minPollingIntervalMs: pollMs,
      onConflict: "always_update",
    });
    const { DBOSExecutor } = await loadDbosExecutor();
    const heldLease = lease;
    let adopting = false;
    const adopt = setInterval(() => {
      polling.clamp();
      if (adopting || !heldLease.live()) return;
      adopting = true;
      claimDeadWorkers(db.pool, executorId, 0, leaseMs)
        .then((dead) =>
          dead.length > 0 ? DBOSExecutor.globalInstance?.recoverPendingWorkflows(dead) : undefined,
        )
        .catch(() => {
          // The database is away for a moment: the next period tries again.
        })
        .finally(() => {
          adopting = false;
        });
    }, adoptEveryMs);
    adopt.unref();
    const heldStore = store;
    return {
      executorId,
      queue,
      async stop(graceMs = 10_000) {
        clearInterval(adopt);
        await DBOS.shutdown({ workflowCompletionTimeoutMS: graceMs });
        await heldLease.release().catch(() => {});
        await options.module.close?.();
        await heldStore.close();
        await db.close();
        started = false;
      },
    };
  } catch (error) {
    lease?.stop();
    await store?.close();
    await db.close();
    started = false;
    throw error;
  }
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new ConfigError(`The worker option ${name} must be a positive number`);
  return value;
}
