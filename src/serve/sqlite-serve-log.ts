import { join } from "node:path";
import type { RunUsage } from "../core/vocabulary/usage.js";
import type { ApprovalItem, LogEntry } from "./log-items.js";
import type {
  ApprovalRecord,
  ChatRecord,
  NewServeRun,
  RunQuery,
  RunRecord,
  ServeLog,
  ServeRunStatus,
} from "./serve-log.js";
import { addApprovals, decide, getApproval, openApprovals } from "./sqlite-log/approvals.js";
import { claimChat, deleteChat, ensureChat, getChat, listChats, releaseChat } from "./sqlite-log/chats.js";
import { openServeDb, type SqliteServeDb } from "./sqlite-log/db.js";
import { append, read } from "./sqlite-log/items.js";
import { driveRun, releaseRun, renewLeases, requestCancel, takeOverRun } from "./sqlite-log/leases.js";
import {
  countActiveRuns,
  createRun,
  getRun,
  listChatRuns,
  listRunning,
  listRuns,
  setRunStatus,
} from "./sqlite-log/runs.js";

/** The serve log's default file, beside the default store's. */
export const DEFAULT_SERVE_DB = join(".glassloop", "serve.db");

/**
 * The serve log in SQLite (better-sqlite3, WAL): one file, default `.glassloop/serve.db`, or
 * `:memory:`. Items of a run are appended in batches, one transaction each.
 *
 * The statements live in `sqlite-log/`, one file per concept (chats, runs, leases, items,
 * approvals). They run synchronously; the methods here are `async` so that a failure (a fenced
 * write's LeaseLostError, a busy file) is a rejected promise, as the `ServeLog` interface says.
 */
export class SqliteServeLog implements ServeLog {
  readonly location: string;
  readonly #db: SqliteServeDb;

  constructor(path: string = DEFAULT_SERVE_DB) {
    this.location = path;
    this.#db = openServeDb(path);
  }

  async getChat(principal: string, chatId: string): Promise<ChatRecord | undefined> {
    return getChat(this.#db, principal, chatId);
  }

  async ensureChat(chat: Omit<ChatRecord, "createdAt" | "updatedAt" | "activeRun">): Promise<ChatRecord> {
    return ensureChat(this.#db, chat);
  }

  async listChats(principal: string, limit: number): Promise<ChatRecord[]> {
    return listChats(this.#db, principal, limit);
  }

  async deleteChat(principal: string, chatId: string): Promise<void> {
    deleteChat(this.#db, principal, chatId);
  }

  async claimChat(principal: string, chatId: string, runId: string, expect?: string): Promise<boolean> {
    return claimChat(this.#db, principal, chatId, runId, expect);
  }

  async releaseChat(principal: string, chatId: string, runId: string, driver?: string): Promise<void> {
    releaseChat(this.#db, principal, chatId, runId, driver);
  }

  async createRun(run: NewServeRun): Promise<void> {
    createRun(this.#db, run);
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    return getRun(this.#db, runId);
  }

  async listChatRuns(principal: string, chatId: string): Promise<RunRecord[]> {
    return listChatRuns(this.#db, principal, chatId);
  }

  async listRuns(query: RunQuery): Promise<{ runs: RunRecord[]; total: number }> {
    return listRuns(this.#db, query);
  }

  async listRunning(): Promise<RunRecord[]> {
    return listRunning(this.#db);
  }

  async setRunStatus(
    runId: string,
    status: ServeRunStatus,
    usage?: RunUsage,
    driver?: string,
  ): Promise<void> {
    setRunStatus(this.#db, runId, status, usage, driver);
  }

  async countActiveRuns(principal: string): Promise<number> {
    return countActiveRuns(this.#db, principal);
  }

  async driveRun(runId: string, driver: string, leaseUntil: number): Promise<void> {
    driveRun(this.#db, runId, driver, leaseUntil);
  }

  async takeOverRun(
    runId: string,
    driver: string,
    leaseUntil: number,
    expectDriver: string | undefined,
  ): Promise<boolean> {
    return takeOverRun(this.#db, runId, driver, leaseUntil, expectDriver);
  }

  async renewLeases(
    driver: string,
    leaseUntil: number,
    driven?: readonly string[],
  ): Promise<{ cancelled: string[]; lost: string[] }> {
    return renewLeases(this.#db, driver, leaseUntil, driven);
  }

  async releaseRun(runId: string, driver: string): Promise<boolean> {
    return releaseRun(this.#db, runId, driver);
  }

  async requestCancel(runId: string): Promise<void> {
    requestCancel(this.#db, runId);
  }

  async append(runId: string, entries: readonly LogEntry[], driver?: string): Promise<void> {
    append(this.#db, runId, entries, driver);
  }

  async read(runId: string, afterSeq: number, limit: number): Promise<LogEntry[]> {
    return read(this.#db, runId, afterSeq, limit);
  }

  async addApprovals(
    runId: string,
    approvals: readonly (ApprovalItem & { validated: string })[],
    driver?: string,
  ): Promise<void> {
    addApprovals(this.#db, runId, approvals, driver);
  }

  async getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    return getApproval(this.#db, approvalId);
  }

  async openApprovals(runId: string): Promise<ApprovalRecord[]> {
    return openApprovals(this.#db, runId);
  }

  async decide(
    decisions: readonly { approvalId: string; approved: boolean; reason?: string }[],
  ): Promise<boolean> {
    return decide(this.#db, decisions);
  }

  close(): void {
    this.#db.db.close();
  }
}
