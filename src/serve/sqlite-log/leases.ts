import { driverOf, type SqliteServeDb } from "./db.js";

// Which process drives a running run, until when, and whether it was asked to stop: the lease
// every fenced write is checked against. `ServeLog` gives each operation's contract.

/** Marks a run running again, driven by `driver` until `leaseUntil`. */
export function driveRun(db: SqliteServeDb, runId: string, driver: string, leaseUntil: number): void {
  db.sql(
    `update serve_runs set status = 'running', driver = ?, lease_until = ?, cancel_requested = 0, updated_at = ?
       where run_id = ?`,
  ).run(driver, leaseUntil, Date.now(), runId);
}

/** Takes a running run over from `expectDriver`: false when the run moved on or another took it first. */
export function takeOverRun(
  db: SqliteServeDb,
  runId: string,
  driver: string,
  leaseUntil: number,
  expectDriver: string | undefined,
): boolean {
  const result = db
    .sql(
      `update serve_runs set driver = ?, lease_until = ?, updated_at = ?
         where run_id = ? and status = 'running' and driver is ?`,
    )
    .run(driver, leaseUntil, Date.now(), runId, expectDriver ?? null);
  return result.changes === 1;
}

/** Extends `driver`'s leases; the runs a client asked to stop, and of `driven` those it lost. */
export function renewLeases(
  db: SqliteServeDb,
  driver: string,
  leaseUntil: number,
  driven?: readonly string[],
): { cancelled: string[]; lost: string[] } {
  const rows = (
    driven === undefined
      ? db
          .sql(
            `update serve_runs set lease_until = ? where driver = ? and status = 'running'
               returning run_id, cancel_requested`,
          )
          .all(leaseUntil, driver)
      : db
          .sql(
            `update serve_runs set lease_until = ? where driver = ? and status = 'running'
               and run_id in (select value from json_each(?)) returning run_id, cancel_requested`,
          )
          .all(leaseUntil, driver, JSON.stringify(driven))
  ) as { run_id: string; cancel_requested: number }[];
  return {
    cancelled: rows.filter((r) => r.cancel_requested === 1).map((r) => r.run_id),
    lost: (driven ?? []).filter((runId) => {
      const now = driverOf(db, runId);
      return now !== undefined && now !== driver;
    }),
  };
}

/** Hands a running run over (no driver, no lease): false when `driver` no longer drove it. */
export function releaseRun(db: SqliteServeDb, runId: string, driver: string): boolean {
  const result = db
    .sql(
      "update serve_runs set driver = null, lease_until = 0 where run_id = ? and driver = ? and status = 'running'",
    )
    .run(runId, driver);
  return result.changes === 1;
}

/** Asks the process driving `runId` to stop it (read when it renews its leases). */
export function requestCancel(db: SqliteServeDb, runId: string): void {
  db.sql("update serve_runs set cancel_requested = 1 where run_id = ? and status = 'running'").run(runId);
}
