import type { RunUsage } from "../vocabulary/usage.js";
import type { RunSessionLink, StoredRunStatus } from "./store.js";

/** A row of the runs table as the driver returns it. */
export interface RunRow {
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
  usage: string;
  progress: string;
  output: string | null;
  error: string | null;
  /** JSON of RunTools; null for runs stored before schema version 2. */
  tools: string | null;
  created_at: number;
  updated_at: number;
}

/** Usage totals without the per-step list (steps have rows of their own). */
export function withoutSteps(usage: RunUsage): Omit<RunUsage, "steps"> {
  const { steps: _steps, ...totals } = usage;
  return totals;
}

/** The session link stored with a run row. */
export function sessionLinkOf(row: RunRow): RunSessionLink | undefined {
  if (row.session_id === null) return undefined;
  return {
    sessionId: row.session_id,
    offset: row.session_offset ?? 0,
    base: row.session_base ?? 0,
    version: row.session_version ?? 0,
  };
}
