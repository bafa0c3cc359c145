import type { PgPool } from "../store/postgres/pg-driver.js";
import { NOW_MS } from "./scale-db.js";

/**
 * Marks that the call `callId`, the tool step with operation number `op` of its run, starts now:
 * true the first time, false when an earlier execution of the run marked it (and died before the
 * step's outcome was recorded).
 */
export type MarkStart = (op: number, callId: string) => Promise<boolean>;

/**
 * The start markers of one run's non-idempotent tool calls, rows of `tool_starts` keyed by the
 * tool step's operation number (the same on every execution). Marking and asking are one
 * statement, one round trip, committed before the tool runs: a DBOS step of its own for the
 * marker cost seven round trips per call.
 */
export function toolStarts(pool: PgPool, runId: string, worker: string): MarkStart {
  return async (op, callId) => {
    const { rowCount } = await pool.query(
      `insert into tool_starts (run_id, op, call_id, worker, at) values ($1, $2, $3, $4, ${NOW_MS})
       on conflict (run_id, op) do nothing`,
      [runId, op, callId, worker],
    );
    return rowCount === 1;
  };
}
