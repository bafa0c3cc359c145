import type Database from "better-sqlite3";
import type { PendingCall } from "../store.js";
import { parseStored } from "./sqlite-open.js";

/**
 * The calls of a run's turn in progress, one row each, so a checkpoint after one call rewrites
 * that call alone: a turn of N calls costs O(N) bytes written, not O(N²).
 */
export class SqliteRunCalls {
  readonly #file: string;
  readonly #upsert: Database.Statement;
  readonly #clear: Database.Statement;
  readonly #list: Database.Statement;

  constructor(db: Database.Database, file: string) {
    this.#file = file;
    // A call keeps its place when it changes; a new one goes last.
    this.#upsert = db.prepare(
      `INSERT INTO run_calls (run_id, call_id, seq, pending)
       VALUES (@run, @call, (SELECT coalesce(max(seq), -1) + 1 FROM run_calls WHERE run_id = @run), @pending)
       ON CONFLICT (run_id, call_id) DO UPDATE SET pending = excluded.pending`,
    );
    this.#clear = db.prepare("DELETE FROM run_calls WHERE run_id = ?");
    this.#list = db.prepare("SELECT pending FROM run_calls WHERE run_id = ? ORDER BY seq").pluck();
  }

  /** Writes these calls, each replacing the stored call of its id. */
  upsert(runId: string, calls: readonly PendingCall[]): void {
    for (const call of calls)
      this.#upsert.run({ run: runId, call: call.call.id, pending: JSON.stringify(call) });
  }

  /** Makes `calls` the whole list. */
  replace(runId: string, calls: readonly PendingCall[]): void {
    this.#clear.run(runId);
    this.upsert(runId, calls);
  }

  /** The stored calls in the order they were first written. */
  list(runId: string): PendingCall[] {
    return (this.#list.all(runId) as string[]).map((text) =>
      parseStored<PendingCall>(text, this.#file, `a pending call of run ${runId}`),
    );
  }
}
