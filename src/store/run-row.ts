import type { StoredRunStatus } from "../core/vocabulary/status.js";
import type { RunUsage } from "../core/vocabulary/usage.js";
import type { RunProgress, RunSessionLink, StoredRunSummary } from "./store.js";

// The row shaping both stores share: what of a run's usage and progress lives in the run row, and
// the session link's four columns. Only the driver-specific column types stay in each store.

/** The session-link columns of a runs row, alike in every store. */
export interface RunSessionColumns {
  session_id: string | null;
  session_offset: number | null;
  session_base: number | null;
  session_version: number | null;
}

/** Usage totals without the per-step list (steps have rows of their own). */
export function withoutSteps(usage: RunUsage): Omit<RunUsage, "steps"> {
  const { steps: _steps, ...totals } = usage;
  return totals;
}

/** What of a progress the run row keeps: all but the calls, which have rows of their own. */
export function rowProgress(progress: RunProgress): RunProgress {
  const { pending: _calls, ...rest } = progress;
  return { ...rest, pending: [] };
}

/** The session link stored with a run row. */
export function sessionLinkOf(row: RunSessionColumns): RunSessionLink | undefined {
  if (row.session_id === null) return undefined;
  return {
    sessionId: row.session_id,
    offset: row.session_offset ?? 0,
    base: row.session_base ?? 0,
    version: row.session_version ?? 0,
  };
}

/** The session-link column values of a new run, in column order (all null for a run without one). */
export function sessionColumnsOf(
  session: RunSessionLink | undefined,
): [string | null, number | null, number | null, number | null] {
  return [
    session?.sessionId ?? null,
    session?.offset ?? null,
    session?.base ?? null,
    session?.version ?? null,
  ];
}

/** The columns of a runs row that one line of `listRuns` shows, alike in every store. */
export interface RunSummaryColumns {
  id: string;
  agent: string;
  status: StoredRunStatus;
  session_id: string | null;
  input: string;
  created_at: number;
  updated_at: number;
}

/** One line of `listRuns` from a row. */
export function summaryOf(r: RunSummaryColumns): StoredRunSummary {
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
