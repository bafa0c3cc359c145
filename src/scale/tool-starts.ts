import type { PgPool } from "../store/postgres/pg-driver.js";
import { NOW_MS } from "./scale-db.js";

/**
 * Marks that the call of the tool step with operation number `op` of its run starts now: true the
 * first time, false when an earlier execution of the run marked it (and died before the step's
 * outcome was recorded).
 */
export type MarkStart = (op: number) => Promise<boolean>;

/**
 * The start markers of one run's non-idempotent tool calls, rows of `tool_starts` keyed by the
 * tool step's operation number (the same on every execution). Marking and asking are one
 * statement, one round trip, committed before the tool runs: a DBOS step of its own for the
 * marker cost seven round trips per call. Nothing of the call itself is stored (its id is the
 * model's text): the step's number says which call it was.
 */
export function toolStarts(pool: PgPool, runId: string, worker: string): MarkStart {
  return async (op) => {
    const { rowCount } = await pool.query(
      `insert into tool_starts (run_id, op, worker, at) values ($1, $2, $3, ${NOW_MS})
       on conflict (run_id, op) do nothing`,
      [runId, op, worker],
    );
    return rowCount === 1;
  };
}
