import { NOTICE_CHANNEL } from "../postgres-serve-schema.js";
import type { PgServeDb } from "./db.js";

// Which process drives a running run, until when, and whether it was asked to stop: the lease
// every fenced write (`driver = $n`) is checked against. `ServeLog` gives each operation's contract.

/** Marks a run running again, driven by `driver` until `leaseUntil`, announced. */
export async function driveRun(
  db: PgServeDb,
  runId: string,
  driver: string,
  leaseUntil: number,
): Promise<void> {
  await db.query(
    "drive_run",
    `WITH changed AS (
       UPDATE serve_runs SET status = 'running', driver = $2, lease_until = $3, cancel_requested = false,
         updated_at = $4 WHERE run_id = $1 RETURNING 1)
     SELECT pg_notify($5, $6)`,
    [runId, driver, leaseUntil, Date.now(), NOTICE_CHANNEL, db.notice({ kind: "items", runId })],
  );
}

/** Takes a running run over from `expectDriver`: false when the run moved on or another took it first. */
export async function takeOverRun(
  db: PgServeDb,
  runId: string,
  driver: string,
  leaseUntil: number,
  expectDriver: string | undefined,
): Promise<boolean> {
  const { rowCount } = await db.query(
    "take_over_run",
    `UPDATE serve_runs SET driver = $2, lease_until = $3, updated_at = $4
       WHERE run_id = $1 AND status = 'running' AND driver IS NOT DISTINCT FROM $5`,
    [runId, driver, leaseUntil, Date.now(), expectDriver ?? null],
  );
  return rowCount === 1;
}

/** Extends `driver`'s leases; the runs a client asked to stop, and of `driven` those it lost. */
export async function renewLeases(
  db: PgServeDb,
  driver: string,
  leaseUntil: number,
  driven?: readonly string[],
): Promise<{ cancelled: string[]; lost: string[] }> {
  // One statement (no transaction held open across round trips): a process frozen between two
  // statements must not keep row locks that would stall the replica taking its runs over.
  const { rows } = await db.query<{ run_id: string; cancel_requested: boolean; lost: boolean }>(
    "renew_leases",
    `WITH renewed AS (
       UPDATE serve_runs SET lease_until = $2 WHERE driver = $1 AND status = 'running'
         AND ($3::text[] IS NULL OR run_id = ANY($3::text[])) RETURNING run_id, cancel_requested)
     SELECT run_id, cancel_requested, false AS lost FROM renewed
     UNION ALL
     SELECT run_id, false, true FROM serve_runs
       WHERE run_id = ANY(coalesce($3::text[], '{}')) AND driver IS DISTINCT FROM $1`,
    [driver, leaseUntil, driven === undefined ? null : [...driven]],
  );
  return {
    cancelled: rows.filter((r) => !r.lost && r.cancel_requested).map((r) => r.run_id),
    lost: rows.filter((r) => r.lost).map((r) => r.run_id),
  };
}

/** Hands a running run over (no driver, no lease; a `released` notice): false when `driver` lost it. */
export async function releaseRun(db: PgServeDb, runId: string, driver: string): Promise<boolean> {
  const { rows } = await db.query<{ released: boolean }>(
    "release_run",
    `WITH changed AS (
       UPDATE serve_runs SET driver = NULL, lease_until = 0
         WHERE run_id = $1 AND driver = $2 AND status = 'running' RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM changed) AS released,
       pg_notify($3, CASE WHEN EXISTS (SELECT 1 FROM changed) THEN $4 ELSE $5 END)`,
    [
      runId,
      driver,
      NOTICE_CHANNEL,
      db.notice({ kind: "released", runId }),
      db.notice({ kind: "items", runId }),
    ],
  );
  return rows[0]?.released === true;
}

/** Asks the process driving `runId` to stop it, announced so it hears at once. */
export async function requestCancel(db: PgServeDb, runId: string): Promise<void> {
  await db.query(
    "request_cancel",
    `WITH changed AS (
       UPDATE serve_runs SET cancel_requested = true WHERE run_id = $1 AND status = 'running' RETURNING 1)
     SELECT pg_notify($2, $3)`,
    [runId, NOTICE_CHANNEL, db.notice({ kind: "cancel", runId })],
  );
}
