import type { RunUsage } from "../../vocabulary/usage.js";
import type { RunSessionLink, RunTools, StoredRunStatus, StoredRunSummary } from "../store.js";

/** A row of the runs table as `pg` returns it (json columns parsed, int8 as numbers). */
export interface PgRunRow {
  id: string;
  agent: string;
  model: string;
  input: string;
  status: StoredRunStatus;
  owner_pid: number;
  owner_host: string;
  session_id: string | null;
  session_offset: number | null;
  session_base: number | null;
  session_version: number | null;
  usage: Omit<RunUsage, "steps">;
  progress: { pending?: unknown[]; guard?: unknown; finishReason?: unknown };
  tools: RunTools | null;
  output: unknown;
  error: { code: string; message: string } | null;
  message_count: number;
  created_at: number;
  updated_at: number;
}

/** Where a stored run stands that can still be resumed. */

/** The session link stored with a run row. */
export function pgSessionLink(row: PgRunRow): RunSessionLink | undefined {
  if (row.session_id === null) return undefined;
  return {
    sessionId: row.session_id,
    offset: row.session_offset ?? 0,
    base: row.session_base ?? 0,
    version: row.session_version ?? 0,
  };
}

/** One line of listRuns from a row. */
export function summaryOf(r: PgRunRow): StoredRunSummary {
  return {
    runId: r.id,
    agent: r.agent,
    status: r.status,
    ...(r.session_id !== null && { sessionId: r.session_id }),
    input: r.input,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
