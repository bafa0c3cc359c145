import { LeaseLostError } from "../errors.js";
import type { ApprovalItem } from "../log-items.js";
import type { ApprovalRecord } from "../serve-log.js";
import { type ApprovalRow, approvalOf } from "../sqlite-serve-rows.js";
import { driverOf, type SqliteServeDb } from "./db.js";

/** Records the approvals a run waits for; with `driver`, fenced as `append` is. */
export function addApprovals(
  db: SqliteServeDb,
  runId: string,
  approvals: readonly (ApprovalItem & { validated: string })[],
  driver?: string,
): void {
  const insert = db.sql(
    `insert into serve_approvals (approval_id, run_id, tool_call_id, tool_name, input, validated)
     values (?, ?, ?, ?, ?, ?)`,
  );
  db.db
    .transaction(() => {
      if (driver !== undefined && driverOf(db, runId) !== driver) throw new LeaseLostError(runId);
      for (const a of approvals)
        insert.run(a.approvalId, runId, a.toolCallId, a.toolName, JSON.stringify(a.input), a.validated);
    })
    .immediate();
}

/** An approval, or undefined. */
export function getApproval(db: SqliteServeDb, approvalId: string): ApprovalRecord | undefined {
  const row = db.sql("select * from serve_approvals where approval_id = ?").get(approvalId) as
    | ApprovalRow
    | undefined;
  return row && approvalOf(row);
}

/** The run's approvals not decided yet. */
export function openApprovals(db: SqliteServeDb, runId: string): ApprovalRecord[] {
  const rows = db
    .sql("select * from serve_approvals where run_id = ? and decided is null")
    .all(runId) as ApprovalRow[];
  return rows.map(approvalOf);
}

/** Records decisions, all or none: false (nothing written) if any was decided already. */
export function decide(
  db: SqliteServeDb,
  decisions: readonly { approvalId: string; approved: boolean; reason?: string }[],
): boolean {
  const update = db.sql("update serve_approvals set decided = ? where approval_id = ? and decided is null");
  const run = db.db.transaction(() => {
    const at = Date.now();
    for (const d of decisions) {
      const decided = JSON.stringify({ approved: d.approved, ...(d.reason && { reason: d.reason }), at });
      // A decision already taken rolls the whole batch back: all or none.
      if (update.run(decided, d.approvalId).changes !== 1) throw new AlreadyDecided();
    }
  });
  try {
    run();
    return true;
  } catch (error) {
    if (error instanceof AlreadyDecided) return false;
    throw error;
  }
}

class AlreadyDecided extends Error {}
