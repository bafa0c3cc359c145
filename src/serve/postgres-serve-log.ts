import type { RunUsage } from "../core/vocabulary/usage.js";
import {
  migrateTarget,
  openPgPool,
  type PgTarget,
  type PostgresOptions,
  pgTransaction,
} from "../store/postgres/pg-pool.js";
import type { ApprovalItem, LogEntry } from "./log-items.js";
import { NoticeListener } from "./pg-notice-listener.js";
import { addApprovals, decide, getApproval, openApprovals } from "./postgres-log/approvals.js";
import { claimChat, deleteChat, ensureChat, getChat, listChats, releaseChat } from "./postgres-log/chats.js";
import type { PgServeDb } from "./postgres-log/db.js";
import { append, read } from "./postgres-log/items.js";
import { driveRun, releaseRun, renewLeases, requestCancel, takeOverRun } from "./postgres-log/leases.js";
import {
  countActiveRuns,
  createRun,
  getRun,
  listChatRuns,
  listRunning,
  listRuns,
  setRunStatus,
} from "./postgres-log/runs.js";
import { NOTICE_CHANNEL, SERVE_PG_MIGRATIONS, SERVE_VERSION_TABLE } from "./postgres-serve-schema.js";
import type {
  ApprovalRecord,
  ChatRecord,
  NewServeRun,
  RunQuery,
  RunRecord,
  ServeLog,
  ServeNotice,
  ServeRunStatus,
} from "./serve-log.js";

/**
 * The serve log on Postgres, for several server processes (on several machines) sharing one
 * log: the tables live beside the Postgres store's, in the same schema (default `glassloop`).
 * Every append, status change and cancel request is announced with NOTIFY, so a process
 * following a run another one drives sees its items as they are written. The pool opens at once;
 * the tables are created (or brought up to date) on first use, and `ready` settles then.
 *
 * The statements live in `postgres-log/`, one file per concept (chats, runs, leases, items,
 * approvals); this class owns the pool, the readiness, the notices and the closing.
 */
export class PostgresServeLog implements ServeLog {
  /** The server and database, without the password. */
  readonly location: string;
  /** The schema holding the tables. */
  readonly schema: string;
  /** Settles once the tables exist (rejects, naming the server, when it cannot be reached). */
  readonly ready: Promise<void>;
  readonly #target: PgTarget;
  readonly #listener: NoticeListener;
  readonly #db: PgServeDb;
  #closed: Promise<void> | undefined;

  constructor(options: PostgresOptions = {}) {
    this.#target = openPgPool(options, "PostgresServeLog");
    this.location = this.#target.location;
    this.schema = this.#target.schema;
    this.ready = migrateTarget(this.#target, SERVE_PG_MIGRATIONS, SERVE_VERSION_TABLE);
    // Awaited by every method; a log never used must not leave an unhandled rejection behind.
    this.ready.catch(() => {});
    this.#listener = new NoticeListener(this.#target, NOTICE_CHANNEL);
    const tx: PgServeDb["tx"] = async (work, kind = "single") => {
      await this.ready;
      if (this.#closed) throw new Error(`The serve log on ${this.location} is closed`);
      return pgTransaction(this.#target, work, kind);
    };
    this.#db = {
      tx,
      query: (name, text, values) => tx((c) => c.query({ name: `serve_${name}`, text, values })),
      notice: (notice) => JSON.stringify({ s: this.schema, k: notice.kind, r: notice.runId }),
    };
  }

  /**
   * The log's pool and schema, for tables kept beside the log's (A2A's task histories and
   * webhooks): they share its connections and its schema, and must not end the pool.
   */
  get pg(): PgTarget {
    return this.#target;
  }

  /** Opens the log and waits until its tables exist. */
  static async connect(options: PostgresOptions = {}): Promise<PostgresServeLog> {
    const log = new PostgresServeLog(options);
    await log.ready;
    return log;
  }

  getChat(principal: string, chatId: string): Promise<ChatRecord | undefined> {
    return getChat(this.#db, principal, chatId);
  }

  ensureChat(chat: Omit<ChatRecord, "createdAt" | "updatedAt" | "activeRun">): Promise<ChatRecord> {
    return ensureChat(this.#db, chat);
  }

  listChats(principal: string, limit: number): Promise<ChatRecord[]> {
    return listChats(this.#db, principal, limit);
  }

  deleteChat(principal: string, chatId: string): Promise<void> {
    return deleteChat(this.#db, principal, chatId);
  }

  claimChat(principal: string, chatId: string, runId: string, expect?: string): Promise<boolean> {
    return claimChat(this.#db, principal, chatId, runId, expect);
  }

  releaseChat(principal: string, chatId: string, runId: string, driver?: string): Promise<void> {
    return releaseChat(this.#db, principal, chatId, runId, driver);
  }

  createRun(run: NewServeRun): Promise<void> {
    return createRun(this.#db, run);
  }

  getRun(runId: string): Promise<RunRecord | undefined> {
    return getRun(this.#db, runId);
  }

  listChatRuns(principal: string, chatId: string): Promise<RunRecord[]> {
    return listChatRuns(this.#db, principal, chatId);
  }

  listRuns(query: RunQuery): Promise<{ runs: RunRecord[]; total: number }> {
    return listRuns(this.#db, query);
  }

  listRunning(): Promise<RunRecord[]> {
    return listRunning(this.#db);
  }

  setRunStatus(runId: string, status: ServeRunStatus, usage?: RunUsage, driver?: string): Promise<void> {
    return setRunStatus(this.#db, runId, status, usage, driver);
  }

  countActiveRuns(principal: string): Promise<number> {
    return countActiveRuns(this.#db, principal);
  }

  driveRun(runId: string, driver: string, leaseUntil: number): Promise<void> {
    return driveRun(this.#db, runId, driver, leaseUntil);
  }

  takeOverRun(
    runId: string,
    driver: string,
    leaseUntil: number,
    expectDriver: string | undefined,
  ): Promise<boolean> {
    return takeOverRun(this.#db, runId, driver, leaseUntil, expectDriver);
  }

  renewLeases(
    driver: string,
    leaseUntil: number,
    driven?: readonly string[],
  ): Promise<{ cancelled: string[]; lost: string[] }> {
    return renewLeases(this.#db, driver, leaseUntil, driven);
  }

  releaseRun(runId: string, driver: string): Promise<boolean> {
    return releaseRun(this.#db, runId, driver);
  }

  requestCancel(runId: string): Promise<void> {
    return requestCancel(this.#db, runId);
  }

  append(runId: string, entries: readonly LogEntry[], driver?: string): Promise<void> {
    return append(this.#db, runId, entries, driver);
  }

  read(runId: string, afterSeq: number, limit: number): Promise<LogEntry[]> {
    return read(this.#db, runId, afterSeq, limit);
  }

  addApprovals(
    runId: string,
    approvals: readonly (ApprovalItem & { validated: string })[],
    driver?: string,
  ): Promise<void> {
    return addApprovals(this.#db, runId, approvals, driver);
  }

  getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    return getApproval(this.#db, approvalId);
  }

  openApprovals(runId: string): Promise<ApprovalRecord[]> {
    return openApprovals(this.#db, runId);
  }

  decide(decisions: readonly { approvalId: string; approved: boolean; reason?: string }[]): Promise<boolean> {
    return decide(this.#db, decisions);
  }

  async subscribe(listener: (notice: ServeNotice) => void): Promise<() => Promise<void>> {
    await this.ready;
    const schema = this.schema;
    return this.#listener.add((payload) => {
      const notice = parseNotice(payload);
      if (notice && notice.s === schema) listener({ kind: notice.k, runId: notice.r });
    });
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      await this.#listener.close();
      await this.#target.pool.end().catch(() => {});
    })();
    return this.#closed;
  }
}

/** A notice's payload, or undefined when it is not one of ours (another program may use the channel). */
function parseNotice(payload: string): { s: string; k: ServeNotice["kind"]; r: string } | undefined {
  try {
    const value = JSON.parse(payload) as { s?: unknown; k?: unknown; r?: unknown };
    if (typeof value.s !== "string" || typeof value.r !== "string") return undefined;
    if (value.k !== "items" && value.k !== "cancel" && value.k !== "released") return undefined;
    return { s: value.s, k: value.k, r: value.r };
  } catch {
    return undefined;
  }
}
