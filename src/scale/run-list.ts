import type { DbosClient } from "./sdk.js";
import { RUN_WORKFLOW, type RunRequest } from "./workflow.js";

// Queued runs as DBOS records them: the list, and what one was enqueued with.

/** DBOS's status filter: a string union it does not export, read off its own signature. */
type StatusFilter = NonNullable<Parameters<DbosClient["listWorkflows"]>[0]["status"]>;

/** Where a queued run stands, as DBOS records it, and which worker has it. */
export interface QueuedRun {
  runId: string;
  /** DBOS's status: ENQUEUED, PENDING (running, or its worker died), SUCCESS, ERROR, CANCELLED… */
  status: string;
  agent?: string;
  /** The executor id of the worker that runs (or ran) it. */
  worker?: string;
  version?: string;
  createdAt: number;
  updatedAt?: number;
}

/** What `listQueuedRuns` keeps: at most `limit` (default 100), of one worker, status or set of ids. */
export interface RunListFilter {
  limit?: number;
  status?: string;
  worker?: string;
  runIds?: string[];
}

/** The queued runs DBOS records, newest first, narrowed by `filter`. */
export async function listQueuedRuns(dbos: DbosClient, filter: RunListFilter = {}): Promise<QueuedRun[]> {
  const rows = await dbos.listWorkflows({
    workflowName: RUN_WORKFLOW,
    ...(filter.worker !== undefined && { executorId: filter.worker }),
    ...(filter.runIds !== undefined && { workflowIDs: filter.runIds }),
    sortDesc: true,
    limit: filter.limit ?? 100,
    loadInput: true,
    loadOutput: false,
    // The caller's string goes to DBOS as its filter; an unknown status simply matches no run.
    ...(filter.status !== undefined && { status: filter.status as StatusFilter }),
  });
  return rows.map((row) => {
    const request = row.input?.[0] as Partial<RunRequest> | undefined;
    return {
      runId: row.workflowID,
      status: row.status,
      ...(typeof request?.agent === "string" && { agent: request.agent }),
      ...(row.executorId !== undefined && { worker: row.executorId }),
      ...(row.applicationVersion !== undefined && { version: row.applicationVersion }),
      createdAt: row.createdAt,
      ...(row.updatedAt !== undefined && { updatedAt: row.updatedAt }),
    };
  });
}

/** What run `runId` was enqueued with, or undefined when no run of that id was (or its input is not a request). */
export async function queuedRequest(dbos: DbosClient, runId: string): Promise<RunRequest | undefined> {
  const [row] = await dbos.listWorkflows({
    workflowName: RUN_WORKFLOW,
    workflowIDs: [runId],
    limit: 1,
    loadInput: true,
    loadOutput: false,
  });
  const request = row?.input?.[0] as RunRequest | undefined;
  return typeof request?.agent === "string" && typeof request.input === "string" ? request : undefined;
}
