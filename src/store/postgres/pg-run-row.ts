import type { StoredRunStatus } from "../../core/vocabulary/status.js";
import type { RunUsage } from "../../core/vocabulary/usage.js";
import type { RunSessionColumns } from "../run-row.js";
import type { RunTools } from "../store.js";

/** A row of the runs table as `pg` returns it (json columns parsed, int8 as numbers). */
export interface PgRunRow extends RunSessionColumns {
  id: string;
  agent: string;
  model: string;
  input: string;
  status: StoredRunStatus;
  owner_pid: number;
  owner_host: string;
  /** The owner's lease (ms since the epoch); null: none. */
  lease_until: number | null;
  /** The fencing token: one more at every claim. */
  fence: number;
  usage: Omit<RunUsage, "steps">;
  progress: { pending?: unknown[]; guard?: unknown; finishReason?: unknown };
  tools: RunTools | null;
  output: unknown;
  error: { code: string; message: string } | null;
  message_count: number;
  created_at: number;
  updated_at: number;
}
