import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type Database from "better-sqlite3";
import type { RunUsage } from "../core/vocabulary/usage.js";
import { LeaseLostError } from "./errors.js";
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
import {
  type ApprovalRow,
  approvalOf,
  type ChatRow,
  chatOf,
  type RunRow,
  runOf,
  turnOf,
} from "./sqlite-serve-rows.js";

/** The serve log's default file, beside the default store's. */
export const DEFAULT_SERVE_DB = join(".glassloop", "serve.db");

const SCHEMA = `
create table if not exists serve_chats (
  principal text not null, chat_id text not null, agent text not null, title text not null,
  active_run text, created_at integer not null, updated_at integer not null,
  primary key (principal, chat_id)
);
create table if not exists serve_runs (
  run_id text primary key, principal text not null, chat_id text not null, agent text not null,
  model text not null, input text not null, status text not null, usage text,
  last_seq integer not null default -1, created_at integer not null, updated_at integer not null,
  turn text, driver text, lease_until integer, cancel_requested integer not null default 0
);
create index if not exists serve_runs_chat on serve_runs (principal, chat_id, created_at);
create index if not exists serve_runs_status on serve_runs (status);
create index if not exists serve_runs_listed on serve_runs (principal, agent, updated_at);
create table if not exists serve_items (
  run_id text not null, seq integer not null, item text not null, primary key (run_id, seq)
) without rowid;
create table if not exists serve_approvals (
  approval_id text primary key, run_id text not null, tool_call_id text not null,
  tool_name text not null, input text not null, validated text not null, decided text
);
create index if not exists serve_approvals_run on serve_approvals (run_id);
`;

/** Columns of serve_runs added after the first release (by ALTER on older files). */
const ADDED_COLUMNS: readonly (readonly [string, string])[] = [
  ["turn", "text"],
  ["driver", "text"],
  ["lease_until", "integer"],
  ["cancel_requested", "integer not null default 0"],
];

/**
 * The serve log in SQLite (better-sqlite3, WAL): one file, default `.glassloop/serve.db`, or
 * `:memory:`. Items of a run are appended in batches, one transaction each.
 */
export class SqliteServeLog implements ServeLog {
  readonly location: string;
  readonly #db: Database.Database;
  // Prepared once per SQL text: preparing costs more than most of these statements take to run.
  readonly #statements = new Map<string, Database.Statement>();
  #appendTx:
    | Database.Transaction<(runId: string, entries: readonly LogEntry[], driver: string | undefined) => void>
    | undefined;

  #sql(text: string): Database.Statement {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = this.#db.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  constructor(path: string = DEFAULT_SERVE_DB) {
    this.location = path;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const Driver = createRequire(import.meta.url)("better-sqlite3") as typeof Database;
    this.#db = new Driver(path, { timeout: 5_000 });
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma("synchronous = NORMAL");
    this.#db.exec(SCHEMA);
    // Logs written before runs kept their session and files, or their driver, get the columns, empty on old rows.
    const columns = new Set(
      (this.#db.pragma("table_info(serve_runs)") as { name: string }[]).map((c) => c.name),
    );
    for (const [name, type] of ADDED_COLUMNS)
      if (!columns.has(name)) this.#db.exec(`alter table serve_runs add column ${name} ${type}`);
  }

  async getChat(principal: string, chatId: string): Promise<ChatRecord | undefined> {
    const row = this.#sql("select * from serve_chats where principal = ? and chat_id = ?").get(
      principal,
      chatId,
    ) as ChatRow | undefined;
    return row && chatOf(row);
  }

  async ensureChat(chat: Omit<ChatRecord, "createdAt" | "updatedAt" | "activeRun">): Promise<ChatRecord> {
    const now = Date.now();
    this.#sql(
      `insert into serve_chats (principal, chat_id, agent, title, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?) on conflict do nothing`,
    ).run(chat.principal, chat.chatId, chat.agent, chat.title, now, now);
    return (await this.getChat(chat.principal, chat.chatId)) as ChatRecord;
  }

  async listChats(principal: string, limit: number): Promise<ChatRecord[]> {
    const rows = this.#sql(
      "select * from serve_chats where principal = ? order by updated_at desc limit ?",
    ).all(principal, limit) as ChatRow[];
    return rows.map(chatOf);
  }

  async deleteChat(principal: string, chatId: string): Promise<void> {
    this.#sql("delete from serve_chats where principal = ? and chat_id = ?").run(principal, chatId);
  }

  async claimChat(principal: string, chatId: string, runId: string, expect?: string): Promise<boolean> {
    const result = this.#sql(
      `update serve_chats set active_run = ?, updated_at = ?
         where principal = ? and chat_id = ? and (active_run is null or active_run = ?)`,
    ).run(runId, Date.now(), principal, chatId, expect ?? null);
    return result.changes === 1;
  }

  async releaseChat(principal: string, chatId: string, runId: string, driver?: string): Promise<void> {
    this.#sql(
      `update serve_chats set active_run = null, updated_at = ? where principal = ? and chat_id = ? and active_run = ?
         and (? is null or exists (select 1 from serve_runs where run_id = ? and driver = ?))`,
    ).run(Date.now(), principal, chatId, runId, driver ?? null, runId, driver ?? null);
  }

  async createRun(run: NewServeRun): Promise<void> {
    const now = Date.now();
    this.#sql(
      `insert into serve_runs (run_id, principal, chat_id, agent, model, input, status, created_at, updated_at, turn,
         driver, lease_until)
         values (?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`,
    ).run(
      run.runId,
      run.principal,
      run.chatId,
      run.agent,
      run.model,
      run.input,
      now,
      now,
      turnOf(run),
      run.driver ?? null,
      run.leaseUntil ?? null,
    );
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const row = this.#sql("select * from serve_runs where run_id = ?").get(runId) as RunRow | undefined;
    return row && runOf(row);
  }

  async listChatRuns(principal: string, chatId: string): Promise<RunRecord[]> {
    const rows = this.#sql(
      "select * from serve_runs where principal = ? and chat_id = ? order by created_at, rowid",
    ).all(principal, chatId) as RunRow[];
    return rows.map(runOf);
  }

  async listRuns(query: RunQuery): Promise<{ runs: RunRecord[]; total: number }> {
    if (query.statuses?.length === 0) return { runs: [], total: 0 };
    const where = ["principal = ?", "agent = ?"];
    const args: (string | number)[] = [query.principal, query.agent];
    if (query.chatId !== undefined) {
      where.push("chat_id = ?");
      args.push(query.chatId);
    }
    if (query.statuses) {
      where.push(`status in (${query.statuses.map(() => "?").join(", ")})`);
      args.push(...query.statuses);
    }
    if (query.updatedSince !== undefined) {
      where.push("updated_at >= ?");
      args.push(query.updatedSince);
    }
    const filter = where.join(" and ");
    const { n } = this.#sql(`select count(*) as n from serve_runs where ${filter}`).get(...args) as {
      n: number;
    };
    const page = query.after ? " and (updated_at < ? or (updated_at = ? and run_id < ?))" : "";
    const pageArgs = query.after ? [query.after.updatedAt, query.after.updatedAt, query.after.runId] : [];
    const rows = this.#sql(
      `select * from serve_runs where ${filter}${page} order by updated_at desc, run_id desc limit ?`,
    ).all(...args, ...pageArgs, query.limit) as RunRow[];
    return { runs: rows.map(runOf), total: n };
  }

  async listRunning(): Promise<RunRecord[]> {
    const rows = this.#sql(
      "select * from serve_runs where status = 'running' order by created_at",
    ).all() as RunRow[];
    return rows.map(runOf);
  }

  async setRunStatus(
    runId: string,
    status: ServeRunStatus,
    usage?: RunUsage,
    driver?: string,
  ): Promise<void> {
    this.#sql(
      `update serve_runs set status = ?, usage = coalesce(?, usage), updated_at = ? where run_id = ?
         and (? is null or driver = ?)`,
    ).run(
      status,
      usage === undefined ? null : JSON.stringify(usage),
      Date.now(),
      runId,
      driver ?? null,
      driver ?? null,
    );
  }

  async countActiveRuns(principal: string): Promise<number> {
    const row = this.#sql(
      "select count(*) as n from serve_runs where principal = ? and status = 'running'",
    ).get(principal) as { n: number };
    return row.n;
  }

  async driveRun(runId: string, driver: string, leaseUntil: number): Promise<void> {
    this.#sql(
      `update serve_runs set status = 'running', driver = ?, lease_until = ?, cancel_requested = 0, updated_at = ?
         where run_id = ?`,
    ).run(driver, leaseUntil, Date.now(), runId);
  }

  async takeOverRun(
    runId: string,
    driver: string,
    leaseUntil: number,
    expectDriver: string | undefined,
  ): Promise<boolean> {
    const result = this.#sql(
      `update serve_runs set driver = ?, lease_until = ?, updated_at = ?
         where run_id = ? and status = 'running' and driver is ?`,
    ).run(driver, leaseUntil, Date.now(), runId, expectDriver ?? null);
    return result.changes === 1;
  }

  async renewLeases(
    driver: string,
    leaseUntil: number,
    driven?: readonly string[],
  ): Promise<{ cancelled: string[]; lost: string[] }> {
    const rows = (
      driven === undefined
        ? this.#sql(
            `update serve_runs set lease_until = ? where driver = ? and status = 'running'
               returning run_id, cancel_requested`,
          ).all(leaseUntil, driver)
        : this.#sql(
            `update serve_runs set lease_until = ? where driver = ? and status = 'running'
               and run_id in (select value from json_each(?)) returning run_id, cancel_requested`,
          ).all(leaseUntil, driver, JSON.stringify(driven))
    ) as { run_id: string; cancel_requested: number }[];
    const driverOf = this.#sql("select driver from serve_runs where run_id = ?").pluck();
    return {
      cancelled: rows.filter((r) => r.cancel_requested === 1).map((r) => r.run_id),
      lost: (driven ?? []).filter((runId) => {
        const now = driverOf.get(runId) as string | null | undefined;
        return now !== undefined && now !== driver;
      }),
    };
  }

  async releaseRun(runId: string, driver: string): Promise<boolean> {
    const result = this.#sql(
      "update serve_runs set driver = null, lease_until = 0 where run_id = ? and driver = ? and status = 'running'",
    ).run(runId, driver);
    return result.changes === 1;
  }

  async requestCancel(runId: string): Promise<void> {
    this.#sql("update serve_runs set cancel_requested = 1 where run_id = ? and status = 'running'").run(
      runId,
    );
  }

  async append(runId: string, entries: readonly LogEntry[], driver?: string): Promise<void> {
    if (entries.length === 0) return;
    this.#appendTx ??= this.#db.transaction(
      (id: string, batch: readonly LogEntry[], by: string | undefined) => {
        // The fence: checked under the write lock, so a process that lost the run writes nothing.
        if (
          by !== undefined &&
          this.#sql("select driver from serve_runs where run_id = ?").pluck().get(id) !== by
        )
          throw new LeaseLostError(id);
        const insert = this.#sql("insert into serve_items (run_id, seq, item) values (?, ?, ?)");
        for (const e of batch) insert.run(id, e.seq, JSON.stringify(e.item));
        this.#sql("update serve_runs set last_seq = ?, updated_at = ? where run_id = ?").run(
          (batch.at(-1) as LogEntry).seq,
          Date.now(),
          id,
        );
      },
    );
    this.#appendTx.immediate(runId, entries, driver);
  }

  async read(runId: string, afterSeq: number, limit: number): Promise<LogEntry[]> {
    const rows = this.#sql(
      "select seq, item from serve_items where run_id = ? and seq > ? order by seq limit ?",
    ).all(runId, afterSeq, limit) as { seq: number; item: string }[];
    return rows.map((r) => ({ seq: r.seq, item: JSON.parse(r.item) }));
  }

  async addApprovals(
    runId: string,
    approvals: readonly (ApprovalItem & { validated: string })[],
    driver?: string,
  ): Promise<void> {
    const insert = this.#sql(
      `insert into serve_approvals (approval_id, run_id, tool_call_id, tool_name, input, validated)
       values (?, ?, ?, ?, ?, ?)`,
    );
    this.#db
      .transaction(() => {
        if (
          driver !== undefined &&
          this.#sql("select driver from serve_runs where run_id = ?").pluck().get(runId) !== driver
        )
          throw new LeaseLostError(runId);
        for (const a of approvals)
          insert.run(a.approvalId, runId, a.toolCallId, a.toolName, JSON.stringify(a.input), a.validated);
      })
      .immediate();
  }

  async getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    const row = this.#sql("select * from serve_approvals where approval_id = ?").get(approvalId) as
      | ApprovalRow
      | undefined;
    return row && approvalOf(row);
  }

  async openApprovals(runId: string): Promise<ApprovalRecord[]> {
    const rows = this.#sql("select * from serve_approvals where run_id = ? and decided is null").all(
      runId,
    ) as ApprovalRow[];
    return rows.map(approvalOf);
  }

  async decide(
    decisions: readonly { approvalId: string; approved: boolean; reason?: string }[],
  ): Promise<boolean> {
    const update = this.#sql(
      "update serve_approvals set decided = ? where approval_id = ? and decided is null",
    );
    const run = this.#db.transaction(() => {
      const at = Date.now();
      for (const d of decisions) {
        const decided = JSON.stringify({ approved: d.approved, ...(d.reason && { reason: d.reason }), at });
        // A decision already taken rolls the whole batch back: all or none.
        if (update.run(decided, d.approvalId).changes !== 1) throw new AlreadyDecided();
      }
    });
    return safely(() => run());
  }

  close(): void {
    this.#db.close();
  }
}

class AlreadyDecided extends Error {}

/** Runs a transaction; false when it rolled back because a decision was already taken. */
function safely(transaction: () => void): boolean {
  try {
    transaction();
    return true;
  } catch (error) {
    if (error instanceof AlreadyDecided) return false;
    throw error;
  }
}
