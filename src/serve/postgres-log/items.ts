import { LeaseLostError } from "../errors.js";
import type { LogEntry } from "../log-items.js";
import { NOTICE_CHANNEL } from "../postgres-serve-schema.js";
import type { PgServeDb } from "./db.js";

/** Appends a run's entries, announced; with `driver`, fenced (LeaseLostError, nothing written). */
export async function append(
  db: PgServeDb,
  runId: string,
  entries: readonly LogEntry[],
  driver?: string,
): Promise<void> {
  if (entries.length === 0) return;
  // One statement: the items, the run's last sequence number and the notice commit together. The
  // run's row is updated first (its lock taken) and only while `driver` drives it: the fence.
  const { rows } = await db.query<{ written: boolean }>(
    "append",
    `WITH run AS (UPDATE serve_runs SET last_seq = $4, updated_at = $5
         WHERE run_id = $1 AND ($8::text IS NULL OR driver = $8::text) RETURNING 1),
     items AS (
       INSERT INTO serve_items (run_id, seq, item)
         SELECT $1, s, i::json FROM unnest($2::int[], $3::text[]) AS t(s, i) WHERE EXISTS (SELECT 1 FROM run)
         RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM run) AS written, pg_notify($6, $7)`,
    [
      runId,
      entries.map((e) => e.seq),
      entries.map((e) => JSON.stringify(e.item)),
      (entries.at(-1) as LogEntry).seq,
      Date.now(),
      NOTICE_CHANNEL,
      db.notice({ kind: "items", runId }),
      driver ?? null,
    ],
  );
  if (driver !== undefined && rows[0]?.written !== true) throw new LeaseLostError(runId);
}

/** A run's entries after `afterSeq`, in order, at most `limit`. */
export async function read(
  db: PgServeDb,
  runId: string,
  afterSeq: number,
  limit: number,
): Promise<LogEntry[]> {
  const { rows } = await db.query<{ seq: number; item: LogEntry["item"] }>(
    "read",
    "SELECT seq, item FROM serve_items WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
    [runId, afterSeq, limit],
  );
  return rows.map((r) => ({ seq: r.seq, item: r.item }));
}
