import type Database from "better-sqlite3";
import { LeaseLostError } from "../errors.js";
import type { LogEntry } from "../log-items.js";
import { driverOf, type SqliteServeDb } from "./db.js";

type AppendTx = Database.Transaction<
  (runId: string, entries: readonly LogEntry[], driver: string | undefined) => void
>;

// One append transaction per log, made on its first append: building it costs more than reusing it.
const appendTxs = new WeakMap<SqliteServeDb, AppendTx>();

/** Appends a run's entries in one transaction; with `driver`, fenced (LeaseLostError, nothing written). */
export function append(
  db: SqliteServeDb,
  runId: string,
  entries: readonly LogEntry[],
  driver?: string,
): void {
  if (entries.length === 0) return;
  let tx = appendTxs.get(db);
  if (!tx) {
    tx = db.db.transaction((id: string, batch: readonly LogEntry[], by: string | undefined) => {
      // The fence: checked under the write lock, so a process that lost the run writes nothing.
      if (by !== undefined && driverOf(db, id) !== by) throw new LeaseLostError(id);
      const insert = db.sql("insert into serve_items (run_id, seq, item) values (?, ?, ?)");
      for (const e of batch) insert.run(id, e.seq, JSON.stringify(e.item));
      db.sql("update serve_runs set last_seq = ?, updated_at = ? where run_id = ?").run(
        (batch.at(-1) as LogEntry).seq,
        Date.now(),
        id,
      );
    });
    appendTxs.set(db, tx);
  }
  tx.immediate(runId, entries, driver);
}

/** A run's entries after `afterSeq`, in order, at most `limit`. */
export function read(db: SqliteServeDb, runId: string, afterSeq: number, limit: number): LogEntry[] {
  const rows = db
    .sql("select seq, item from serve_items where run_id = ? and seq > ? order by seq limit ?")
    .all(runId, afterSeq, limit) as { seq: number; item: string }[];
  return rows.map((r) => ({ seq: r.seq, item: JSON.parse(r.item) }));
}
