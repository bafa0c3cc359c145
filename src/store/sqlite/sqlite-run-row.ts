import type { StoredRunStatus } from "../../core/vocabulary/status.js";
import type { RunSessionColumns } from "../run-row.js";

/** A row of the runs table as the driver returns it. */
export interface RunRow extends RunSessionColumns {
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
  usage: string;
  progress: string;
  output: string | null;
  error: string | null;
  /** JSON of RunTools; null for runs stored before schema version 2. */
  tools: string | null;
  created_at: number;
  updated_at: number;
}
