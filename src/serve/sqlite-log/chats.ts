import type { ChatRecord } from "../serve-log.js";
import { type ChatRow, chatOf } from "../sqlite-serve-rows.js";
import type { SqliteServeDb } from "./db.js";

/** A person's chat, or undefined. */
export function getChat(db: SqliteServeDb, principal: string, chatId: string): ChatRecord | undefined {
  const row = db
    .sql("select * from serve_chats where principal = ? and chat_id = ?")
    .get(principal, chatId) as ChatRow | undefined;
  return row && chatOf(row);
}

/** Creates the chat if new; the existing one (with its agent) otherwise. */
export function ensureChat(
  db: SqliteServeDb,
  chat: Omit<ChatRecord, "createdAt" | "updatedAt" | "activeRun">,
): ChatRecord {
  const now = Date.now();
  db.sql(
    `insert into serve_chats (principal, chat_id, agent, title, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?) on conflict do nothing`,
  ).run(chat.principal, chat.chatId, chat.agent, chat.title, now, now);
  return getChat(db, chat.principal, chat.chatId) as ChatRecord;
}

/** A person's chats, most recently updated first. */
export function listChats(db: SqliteServeDb, principal: string, limit: number): ChatRecord[] {
  const rows = db
    .sql("select * from serve_chats where principal = ? order by updated_at desc limit ?")
    .all(principal, limit) as ChatRow[];
  return rows.map(chatOf);
}

/** Deletes the chat (`ServeLog.deleteChat`). */
export function deleteChat(db: SqliteServeDb, principal: string, chatId: string): void {
  db.sql("delete from serve_chats where principal = ? and chat_id = ?").run(principal, chatId);
}

/** Makes `runId` the chat's active run unless another run (not `expect`) holds it: false then. */
export function claimChat(
  db: SqliteServeDb,
  principal: string,
  chatId: string,
  runId: string,
  expect?: string,
): boolean {
  const result = db
    .sql(
      `update serve_chats set active_run = ?, updated_at = ?
         where principal = ? and chat_id = ? and (active_run is null or active_run = ?)`,
    )
    .run(runId, Date.now(), principal, chatId, expect ?? null);
  return result.changes === 1;
}

/** Frees the chat if `runId` holds it (and, given `driver`, only while that process drives the run). */
export function releaseChat(
  db: SqliteServeDb,
  principal: string,
  chatId: string,
  runId: string,
  driver?: string,
): void {
  db.sql(
    `update serve_chats set active_run = null, updated_at = ? where principal = ? and chat_id = ? and active_run = ?
       and (? is null or exists (select 1 from serve_runs where run_id = ? and driver = ?))`,
  ).run(Date.now(), principal, chatId, runId, driver ?? null, runId, driver ?? null);
}
