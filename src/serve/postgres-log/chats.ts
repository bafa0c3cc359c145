import { CHAT_COLUMNS } from "../postgres-serve-schema.js";
import type { ChatRecord } from "../serve-log.js";
import { type ChatRow, chatOf } from "../sqlite-serve-rows.js";
import type { PgServeDb } from "./db.js";

/** A person's chat, or undefined. */
export async function getChat(
  db: PgServeDb,
  principal: string,
  chatId: string,
): Promise<ChatRecord | undefined> {
  const { rows } = await db.query<ChatRow>(
    "get_chat",
    `SELECT ${CHAT_COLUMNS} FROM serve_chats WHERE principal = $1 AND chat_id = $2`,
    [principal, chatId],
  );
  return rows[0] && pgChat(rows[0]);
}

/** Creates the chat if new; the existing one (with its agent) otherwise. */
export async function ensureChat(
  db: PgServeDb,
  chat: Omit<ChatRecord, "createdAt" | "updatedAt" | "activeRun">,
): Promise<ChatRecord> {
  const now = Date.now();
  await db.query(
    "ensure_chat",
    `INSERT INTO serve_chats (principal, chat_id, agent, title, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT DO NOTHING`,
    [chat.principal, chat.chatId, chat.agent, JSON.stringify(chat.title), now],
  );
  return (await getChat(db, chat.principal, chat.chatId)) as ChatRecord;
}

/** A person's chats, most recently updated first. */
export async function listChats(db: PgServeDb, principal: string, limit: number): Promise<ChatRecord[]> {
  const { rows } = await db.query<ChatRow>(
    "list_chats",
    `SELECT ${CHAT_COLUMNS} FROM serve_chats WHERE principal = $1 ORDER BY updated_at DESC LIMIT $2`,
    [principal, limit],
  );
  return rows.map(pgChat);
}

/** Deletes the chat (`ServeLog.deleteChat`). */
export async function deleteChat(db: PgServeDb, principal: string, chatId: string): Promise<void> {
  await db.query("delete_chat", "DELETE FROM serve_chats WHERE principal = $1 AND chat_id = $2", [
    principal,
    chatId,
  ]);
}

/** Makes `runId` the chat's active run unless another run (not `expect`) holds it: false then. */
export async function claimChat(
  db: PgServeDb,
  principal: string,
  chatId: string,
  runId: string,
  expect?: string,
): Promise<boolean> {
  // The row lock orders two claims at once; the second re-reads active_run and finds it taken.
  const { rowCount } = await db.query(
    "claim_chat",
    `UPDATE serve_chats SET active_run = $3, updated_at = $4
       WHERE principal = $1 AND chat_id = $2 AND (active_run IS NULL OR active_run = $5)`,
    [principal, chatId, runId, Date.now(), expect ?? null],
  );
  return rowCount === 1;
}

/** Frees the chat if `runId` holds it (and, given `driver`, only while that process drives the run). */
export async function releaseChat(
  db: PgServeDb,
  principal: string,
  chatId: string,
  runId: string,
  driver?: string,
): Promise<void> {
  await db.query(
    "release_chat",
    `UPDATE serve_chats SET active_run = NULL, updated_at = $4
       WHERE principal = $1 AND chat_id = $2 AND active_run = $3
         AND ($5::text IS NULL OR EXISTS (SELECT 1 FROM serve_runs WHERE run_id = $3 AND driver = $5::text))`,
    [principal, chatId, runId, Date.now(), driver ?? null],
  );
}

function pgChat(row: ChatRow): ChatRecord {
  return chatOf({ ...row, title: JSON.parse(row.title) as string });
}
