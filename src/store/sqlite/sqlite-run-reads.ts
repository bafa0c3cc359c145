import type Database from "better-sqlite3";
import type { Message } from "../../core/vocabulary/messages.js";
import type { StoredRunStatus } from "../../core/vocabulary/status.js";
import type { RunUsage, StepUsage } from "../../core/vocabulary/usage.js";
import { ownerOf } from "../run-claim.js";
import { sessionLinkOf, summaryOf } from "../run-row.js";
import type { RunProgress, StoredRun, StoredRunSummary } from "../store.js";
import { parseStored } from "./sqlite-open.js";
import type { SqliteRunCalls } from "./sqlite-run-calls.js";
import type { RunRow } from "./sqlite-run-row.js";

// The reads of the SQLite runs tables: a run assembled from its row and child rows, and the run
// list. They run inside the store's read (or write) transaction, which decides what they see.

/** The runs matching `filter`, newest first. */
export function listRuns(
  db: Database.Database,
  filter: { status?: StoredRunStatus; sessionId?: string; limit?: number },
): StoredRunSummary[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (filter.status !== undefined) {
    where.push("status = ?");
    args.push(filter.status);
  }
  if (filter.sessionId !== undefined) {
    where.push("session_id = ?");
    args.push(filter.sessionId);
  }
  const sql = `SELECT id, agent, status, session_id, input, created_at, updated_at FROM runs
      ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, id LIMIT ?`;
  const rows = db.prepare(sql).all(...args, filter.limit ?? 100) as RunRow[];
  return rows.map(summaryOf);
}

/** The transcript of a run, in order. */
export function runMessages(db: Database.Database, file: string, runId: string): Message[] {
  const rows = db
    .prepare("SELECT message FROM run_messages WHERE run_id = ? ORDER BY seq")
    .pluck()
    .all(runId) as string[];
  return rows.map((text) => parseStored<Message>(text, file, `a message of run ${runId}`));
}

/** A stored run from its row plus its transcript, step and call rows. */
export function storedRunOf(
  db: Database.Database,
  file: string,
  calls: SqliteRunCalls,
  row: RunRow,
): StoredRun {
  const totals = parseStored<Omit<RunUsage, "steps">>(row.usage, file, `the usage of run ${row.id}`);
  const steps = (
    db
      .prepare("SELECT usage FROM run_steps WHERE run_id = ? ORDER BY step_index")
      .pluck()
      .all(row.id) as string[]
  ).map((text) => parseStored<StepUsage>(text, file, `a step of run ${row.id}`));
  return {
    runId: row.id,
    agent: row.agent,
    model: row.model,
    input: row.input,
    status: row.status,
    owner: ownerOf(row),
    messages: runMessages(db, file, row.id),
    usage: { ...totals, steps },
    progress: progressOf(file, calls, row),
    ...(row.session_id !== null && { session: sessionLinkOf(row) }),
    ...(row.tools !== null && { tools: parseStored(row.tools, file, `the tools of run ${row.id}`) }),
    ...(row.output !== null && { output: parseStored(row.output, file, `the output of run ${row.id}`) }),
    ...(row.error !== null && { error: parseStored(row.error, file, `the error of run ${row.id}`) }),
    fence: row.fence,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The stored progress: the guard from the run row, the calls from their rows (older databases kept them in the row). */
function progressOf(file: string, calls: SqliteRunCalls, row: RunRow): RunProgress {
  const stored = parseStored<Partial<RunProgress>>(row.progress, file, `the progress of run ${row.id}`);
  return { ...stored, pending: [...(stored.pending ?? []), ...calls.list(row.id)] };
}
