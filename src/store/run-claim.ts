import type { StoredRunStatus } from "../core/vocabulary/status.js";
import { RunBusyError, RunNotResumableError } from "./errors.js";
import { ownerAlive } from "./owner.js";
import type { ClaimExpectation, RunOwner } from "./store.js";

/** The statuses a run can be resumed (claimed) or discarded from. */
export const OPEN_STATUSES: readonly StoredRunStatus[] = ["running", "awaiting_approval"];

/** The columns of a stored run that decide whether it may be claimed or discarded, in every store. */
export interface ClaimableRun {
  status: StoredRunStatus;
  owner_pid: number;
  owner_host: string;
  /** The owner's lease (ms since the epoch); null or absent: none. */
  lease_until?: number | null;
  updated_at: number;
}

/**
 * Refuses a claim of `row` (read under the store's lock): a run that ended, one driven by a live
 * owner, or one that moved on since `expect`. One decision for every store, so SQLite and Postgres
 * cannot drift; each store then writes the claim its own way.
 */
export function assertClaimable(
  location: string,
  runId: string,
  row: ClaimableRun,
  expect?: ClaimExpectation,
): void {
  if (!OPEN_STATUSES.includes(row.status)) {
    throw new RunNotResumableError(
      location,
      runId,
      row.status,
      `it already ended (${row.status}). Start a new run instead.`,
    );
  }
  if (row.status === "running" && ownerAlive(runId, ownerOf(row), row.updated_at)) {
    throw new RunBusyError(
      location,
      runId,
      row.status,
      `it is still running in process ${row.owner_pid} on ${row.owner_host}.`,
    );
  }
  if (expect && (row.status !== expect.status || row.updated_at !== expect.updatedAt)) {
    throw new RunBusyError(
      location,
      runId,
      row.status,
      "another process claimed it while this resume was starting.",
    );
  }
}

/** Refuses to discard a run that ended or is still driven by a live owner. */
export function assertDiscardable(location: string, runId: string, row: ClaimableRun): void {
  if (!OPEN_STATUSES.includes(row.status)) {
    throw new RunNotResumableError(location, runId, row.status, `it already ended (${row.status}).`);
  }
  if (row.status === "running" && ownerAlive(runId, ownerOf(row), row.updated_at)) {
    throw new RunNotResumableError(
      location,
      runId,
      row.status,
      `it is still running in process ${row.owner_pid}; stop it first.`,
    );
  }
}

/** The owner a row names, with its lease when it has one. */
export function ownerOf(row: ClaimableRun): RunOwner {
  const lease = row.lease_until;
  return {
    pid: row.owner_pid,
    host: row.owner_host,
    ...(lease !== null && lease !== undefined && { leaseUntil: Number(lease) }),
  };
}
