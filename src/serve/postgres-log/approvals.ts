import { LeaseLostError } from "../errors.js";
import type { ApprovalItem } from "../log-items.js";
import { APPROVAL_COLUMNS } from "../postgres-serve-schema.js";
import type { ApprovalRecord } from "../serve-log.js";
import { type ApprovalRow, approvalOf } from "../sqlite-serve-rows.js";
import type { PgServeDb } from "./db.js";

/** Records the approvals a run waits for; with `driver`, fenced as `append` is. */
export async function addApprovals(
  db: PgServeDb,
  runId: string,
  approvals: readonly (ApprovalItem & { validated: string })[],
  driver?: string,
): Promise<void> {
  if (approvals.length === 0) return;
  const { rowCount } = await db.query(
    "add_approvals",
    `INSERT INTO serve_approvals (approval_id, run_id, tool_call_id, tool_name, input, validated)
       SELECT a, $1, c, n, i::json, v::json
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(a, c, n, i, v)
       WHERE $7::text IS NULL OR EXISTS (SELECT 1 FROM serve_runs WHERE run_id = $1 AND driver = $7::text)`,
    [
      runId,
      approvals.map((a) => a.approvalId),
      approvals.map((a) => a.toolCallId),
      approvals.map((a) => a.toolName),
      approvals.map((a) => JSON.stringify(a.input)),
      approvals.map((a) => JSON.stringify(a.validated)),
      driver ?? null,
    ],
  );
  if (driver !== undefined && rowCount === 0) throw new LeaseLostError(runId);
}

/** An approval, or undefined. */
export async function getApproval(db: PgServeDb, approvalId: string): Promise<ApprovalRecord | undefined> {
  const { rows } = await db.query<ApprovalRow>(
    "get_approval",
    `SELECT ${APPROVAL_COLUMNS} FROM serve_approvals WHERE approval_id = $1`,
    [approvalId],
  );
  return rows[0] && pgApproval(rows[0]);
}

/** The run's approvals not decided yet, in the order they were added. */
export async function openApprovals(db: PgServeDb, runId: string): Promise<ApprovalRecord[]> {
  const { rows } = await db.query<ApprovalRow>(
    "open_approvals",
    `SELECT ${APPROVAL_COLUMNS} FROM serve_approvals WHERE run_id = $1 AND decided IS NULL ORDER BY ord`,
    [runId],
  );
  return rows.map(pgApproval);
}

/** Records decisions, all or none: false (nothing written) if any was decided already. */
export async function decide(
  db: PgServeDb,
  decisions: readonly { approvalId: string; approved: boolean; reason?: string }[],
): Promise<boolean> {
  const at = Date.now();
  try {
    await db.tx(async (c) => {
      // Two processes deciding at once: the second waits on the row locks, then finds them decided.
      const { rowCount } = await c.query(
        `UPDATE serve_approvals a SET decided = d.decided::json
           FROM unnest($1::text[], $2::text[]) AS d(id, decided)
           WHERE a.approval_id = d.id AND a.decided IS NULL`,
        [
          decisions.map((d) => d.approvalId),
          decisions.map((d) =>
            JSON.stringify({ approved: d.approved, ...(d.reason && { reason: d.reason }), at }),
          ),
        ],
      );
      // A decision already taken rolls the whole batch back: all or none.
      if (rowCount !== decisions.length) throw new AlreadyDecided();
    }, "write");
    return true;
  } catch (error) {
    if (error instanceof AlreadyDecided) return false;
    throw error;
  }
}

class AlreadyDecided extends Error {}

function pgApproval(row: ApprovalRow): ApprovalRecord {
  return approvalOf({ ...row, validated: JSON.parse(row.validated) as string });
}
