/**
 * The serve log's rows and how each becomes a record (and a new run's `turn` column): SQLite's as
 * stored, Postgres's once its JSON columns are read as text (see postgres-serve-log.ts).
 */
import type { RunUsage } from "../core/vocabulary/usage.js";
import type { ApprovalRecord, ChatRecord, RunRecord, ServeRunStatus } from "./serve-log.js";

/** A row of serve_chats. */
export interface ChatRow {
  principal: string;
  chat_id: string;
  agent: string;
  title: string;
  active_run: string | null;
  created_at: number;
  updated_at: number;
}
/** A row of serve_runs. */
export interface RunRow {
  run_id: string;
  principal: string;
  chat_id: string;
  agent: string;
  model: string;
  input: string;
  status: ServeRunStatus;
  usage: string | null;
  turn: string | null;
  driver: string | null;
  lease_until: number | null;
  cancel_requested: number;
  last_seq: number;
  created_at: number;
  updated_at: number;
}
/** A row of serve_approvals. */
export interface ApprovalRow {
  approval_id: string;
  run_id: string;
  tool_call_id: string;
  tool_name: string;
  input: string;
  validated: string;
  decided: string | null;
}

/** A chat row as a record. */
export function chatOf(row: ChatRow): ChatRecord {
  return {
    principal: row.principal,
    chatId: row.chat_id,
    agent: row.agent,
    title: row.title,
    ...(row.active_run !== null && { activeRun: row.active_run }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A run row as a record. */
export function runOf(row: RunRow): RunRecord {
  return {
    runId: row.run_id,
    principal: row.principal,
    chatId: row.chat_id,
    agent: row.agent,
    model: row.model,
    input: row.input,
    status: row.status,
    ...(row.usage !== null && { usage: JSON.parse(row.usage) as RunUsage }),
    ...(row.turn !== null && (JSON.parse(row.turn) as TurnFields)),
    lastSeq: row.last_seq,
    ...(row.driver !== null && { driver: row.driver }),
    ...(row.lease_until !== null && { leaseUntil: row.lease_until }),
    ...(row.cancel_requested === 1 && { cancelRequested: true }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The run fields kept together in the `turn` column (JSON). */
export type TurnFields = Pick<
  RunRecord,
  "session" | "sessionStart" | "replaces" | "attachments" | "messageId"
>;

/** The `turn` column of a new run: null when it has none of those fields. */
export function turnOf(run: TurnFields): string | null {
  const { session, sessionStart, replaces, attachments, messageId } = run;
  const turn: TurnFields = {
    ...(session !== undefined && { session }),
    ...(sessionStart !== undefined && { sessionStart }),
    ...(replaces !== undefined && { replaces }),
    ...(attachments !== undefined && attachments.length > 0 && { attachments }),
    ...(messageId !== undefined && { messageId }),
  };
  return Object.keys(turn).length === 0 ? null : JSON.stringify(turn);
}

/** An approval row as a record. */
export function approvalOf(row: ApprovalRow): ApprovalRecord {
  return {
    approvalId: row.approval_id,
    runId: row.run_id,
    toolCallId: row.tool_call_id,
    toolName: row.tool_name,
    input: JSON.parse(row.input),
    validated: row.validated,
    ...(row.decided !== null && { decided: JSON.parse(row.decided) }),
  };
}
