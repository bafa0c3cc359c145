import type { RunUsage } from "../core/vocabulary/usage.js";
import type { PgClient, PgResult } from "../store/postgres/pg-driver.js";
import {
  migrateTarget,
  openPgPool,
  type PgTarget,
  type PostgresOptions,
  pgTransaction,
} from "../store/postgres/pg-pool.js";
import { LeaseLostError } from "./errors.js";
import type { ApprovalItem, LogEntry } from "./log-items.js";
import { NoticeListener } from "./pg-notice-listener.js";
import {
  APPROVAL_COLUMNS,
  CHAT_COLUMNS,
  NOTICE_CHANNEL,
  RUN_COLUMNS,
  SERVE_PG_MIGRATIONS,
  SERVE_VERSION_TABLE,
} from "./postgres-serve-schema.js";
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
import {
  type ApprovalRow,
  approvalOf,
  type ChatRow,
  chatOf,
  type RunRow,
  runOf,
  turnOf,
} from "./sqlite-serve-rows.js";

/**
 * The serve log on Postgres, for several server processes (on several machines) sharing one
 * log: the tables live beside the Postgres store's, in the same schema (default `glassloop`).
 * Every append, status change and cancel request is announced with NOTIFY, so a process
 * following a run another one drives sees its items as they are written. The pool opens at once;
 * the tables are created (or brought up to date) on first use, and `ready` settles then.
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
  #closed: Promise<void> | undefined;

  constructor(options: PostgresOptions = {}) {
    this.#target = openPgPool(options, "PostgresServeLog");
    this.location = this.#target.location;
    this.schema = this.#target.schema;
    this.ready = migrateTarget(this.#target, SERVE_PG_MIGRATIONS, SERVE_VERSION_TABLE);
    // Awaited by every method; a log never used must not leave an unhandled rejection behind.
    this.ready.catch(() => {});
    this.#listener = new NoticeListener(this.#target, NOTICE_CHANNEL);
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

  async #tx<T>(
    work: (client: PgClient) => Promise<T>,
    kind: "read" | "write" | "single" = "single",
  ): Promise<T> {
    await this.ready;
    if (this.#closed) throw new Error(`The serve log on ${this.location} is closed`);
    return pgTransaction(this.#target, work, kind);
  }

  /** One statement, prepared once per connection under `name`. */
  #query<R>(name: string, text: string, values: unknown[]): Promise<PgResult<R>> {
    return this.#tx((c) => c.query<R>({ name: `serve_${name}`, text, values }));
  }

  #notice(notice: ServeNotice): string {
    return JSON.stringify({ s: this.schema, k: notice.kind, r: notice.runId });
  }

  async getChat(principal: string, chatId: string): Promise<ChatRecord | undefined> {
    const { rows } = await this.#query<ChatRow>(
      "get_chat",
      `SELECT ${CHAT_COLUMNS} FROM serve_chats WHERE principal = $1 AND chat_id = $2`,
      [principal, chatId],
    );
    return rows[0] && pgChat(rows[0]);
  }

  async ensureChat(chat: Omit<ChatRecord, "createdAt" | "updatedAt" | "activeRun">): Promise<ChatRecord> {
    const now = Date.now();
    await this.#query(
      "ensure_chat",
      `INSERT INTO serve_chats (principal, chat_id, agent, title, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT DO NOTHING`,
      [chat.principal, chat.chatId, chat.agent, JSON.stringify(chat.title), now],
    );
    return (await this.getChat(chat.principal, chat.chatId)) as ChatRecord;
  }

  async listChats(principal: string, limit: number): Promise<ChatRecord[]> {
    const { rows } = await this.#query<ChatRow>(
      "list_chats",
      `SELECT ${CHAT_COLUMNS} FROM serve_chats WHERE principal = $1 ORDER BY updated_at DESC LIMIT $2`,
      [principal, limit],
    );
    return rows.map(pgChat);
  }

  async deleteChat(principal: string, chatId: string): Promise<void> {
    await this.#query("delete_chat", "DELETE FROM serve_chats WHERE principal = $1 AND chat_id = $2", [
      principal,
      chatId,
    ]);
  }

  async claimChat(principal: string, chatId: string, runId: string, expect?: string): Promise<boolean> {
    // The row lock orders two claims at once; the second re-reads active_run and finds it taken.
    const { rowCount } = await this.#query(
      "claim_chat",
      `UPDATE serve_chats SET active_run = $3, updated_at = $4
         WHERE principal = $1 AND chat_id = $2 AND (active_run IS NULL OR active_run = $5)`,
      [principal, chatId, runId, Date.now(), expect ?? null],
    );
    return rowCount === 1;
  }

  async releaseChat(principal: string, chatId: string, runId: string, driver?: string): Promise<void> {
    await this.#query(
      "release_chat",
      `UPDATE serve_chats SET active_run = NULL, updated_at = $4
         WHERE principal = $1 AND chat_id = $2 AND active_run = $3
           AND ($5::text IS NULL OR EXISTS (SELECT 1 FROM serve_runs WHERE run_id = $3 AND driver = $5::text))`,
      [principal, chatId, runId, Date.now(), driver ?? null],
    );
  }

  async createRun(run: NewServeRun): Promise<void> {
    const now = Date.now();
    await this.#query(
      "create_run",
      `INSERT INTO serve_runs (run_id, principal, chat_id, agent, model, input, status, turn, driver,
         lease_until, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'running', $7, $8, $9, $10, $10)`,
      [
        run.runId,
        run.principal,
        run.chatId,
        run.agent,
        run.model,
        JSON.stringify(run.input),
        turnOf(run),
        run.driver ?? null,
        run.leaseUntil ?? null,
        now,
      ],
    );
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const { rows } = await this.#query<RunRow>(
      "get_run",
      `SELECT ${RUN_COLUMNS} FROM serve_runs WHERE run_id = $1`,
      [runId],
    );
    return rows[0] && pgRun(rows[0]);
  }

  async listChatRuns(principal: string, chatId: string): Promise<RunRecord[]> {
    const { rows } = await this.#query<RunRow>(
      "list_chat_runs",
      `SELECT ${RUN_COLUMNS} FROM serve_runs WHERE principal = $1 AND chat_id = $2 ORDER BY created_at, ord`,
      [principal, chatId],
    );
    return rows.map(pgRun);
  }

  async listRuns(query: RunQuery): Promise<{ runs: RunRecord[]; total: number }> {
    if (query.statuses?.length === 0) return { runs: [], total: 0 };
    const args: unknown[] = [query.principal, query.agent];
    const where = ["principal = $1", "agent = $2"];
    if (query.chatId !== undefined) {
      args.push(query.chatId);
      where.push(`chat_id = $${args.length}`);
    }
    if (query.statuses) {
      args.push([...query.statuses]);
      where.push(`status = ANY($${args.length}::text[])`);
    }
    if (query.updatedSince !== undefined) {
      args.push(query.updatedSince);
      where.push(`updated_at >= $${args.length}`);
    }
    const filter = where.join(" AND ");
    return this.#tx(async (c) => {
      const counted = await c.query<{ n: number }>(
        `SELECT count(*) AS n FROM serve_runs WHERE ${filter}`,
        args,
      );
      const paged = [...args];
      let page = "";
      if (query.after) {
        paged.push(query.after.updatedAt, query.after.runId);
        const [at, id] = [paged.length - 1, paged.length];
        page = ` AND (updated_at < $${at} OR (updated_at = $${at} AND run_id < $${id}))`;
      }
      paged.push(query.limit);
      const { rows } = await c.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM serve_runs WHERE ${filter}${page}
           ORDER BY updated_at DESC, run_id DESC LIMIT $${paged.length}`,
        paged,
      );
      return { runs: rows.map(pgRun), total: Number(counted.rows[0]?.n ?? 0) };
    }, "read");
  }

  async listRunning(): Promise<RunRecord[]> {
    const { rows } = await this.#query<RunRow>(
      "list_running",
      `SELECT ${RUN_COLUMNS} FROM serve_runs WHERE status = 'running' ORDER BY created_at, ord`,
      [],
    );
    return rows.map(pgRun);
  }

  async setRunStatus(
    runId: string,
    status: ServeRunStatus,
    usage?: RunUsage,
    driver?: string,
  ): Promise<void> {
    await this.#query(
      "set_run_status",
      `WITH changed AS (
         UPDATE serve_runs SET status = $2, usage = coalesce($3::json, usage), updated_at = $4
           WHERE run_id = $1 AND ($7::text IS NULL OR driver = $7::text) RETURNING 1)
       SELECT pg_notify($5, $6)`,
      [
        runId,
        status,
        usage === undefined ? null : JSON.stringify(usage),
        Date.now(),
        NOTICE_CHANNEL,
        this.#notice({ kind: "items", runId }),
        driver ?? null,
      ],
    );
  }

  async countActiveRuns(principal: string): Promise<number> {
    const { rows } = await this.#query<{ n: number }>(
      "count_active",
      "SELECT count(*) AS n FROM serve_runs WHERE principal = $1 AND status = 'running'",
      [principal],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async driveRun(runId: string, driver: string, leaseUntil: number): Promise<void> {
    await this.#query(
      "drive_run",
      `WITH changed AS (
         UPDATE serve_runs SET status = 'running', driver = $2, lease_until = $3, cancel_requested = false,
           updated_at = $4 WHERE run_id = $1 RETURNING 1)
       SELECT pg_notify($5, $6)`,
      [runId, driver, leaseUntil, Date.now(), NOTICE_CHANNEL, this.#notice({ kind: "items", runId })],
    );
  }

  async takeOverRun(
    runId: string,
    driver: string,
    leaseUntil: number,
    expectDriver: string | undefined,
  ): Promise<boolean> {
    const { rowCount } = await this.#query(
      "take_over_run",
      `UPDATE serve_runs SET driver = $2, lease_until = $3, updated_at = $4
         WHERE run_id = $1 AND status = 'running' AND driver IS NOT DISTINCT FROM $5`,
      [runId, driver, leaseUntil, Date.now(), expectDriver ?? null],
    );
    return rowCount === 1;
  }

  async renewLeases(
    driver: string,
    leaseUntil: number,
    driven?: readonly string[],
  ): Promise<{ cancelled: string[]; lost: string[] }> {
    // One statement (no transaction held open across round trips): a process frozen between two
    // statements must not keep row locks that would stall the replica taking its runs over.
    const { rows } = await this.#query<{ run_id: string; cancel_requested: boolean; lost: boolean }>(
      "renew_leases",
      `WITH renewed AS (
         UPDATE serve_runs SET lease_until = $2 WHERE driver = $1 AND status = 'running'
           AND ($3::text[] IS NULL OR run_id = ANY($3::text[])) RETURNING run_id, cancel_requested)
       SELECT run_id, cancel_requested, false AS lost FROM renewed
       UNION ALL
       SELECT run_id, false, true FROM serve_runs
         WHERE run_id = ANY(coalesce($3::text[], '{}')) AND driver IS DISTINCT FROM $1`,
      [driver, leaseUntil, driven === undefined ? null : [...driven]],
    );
    return {
      cancelled: rows.filter((r) => !r.lost && r.cancel_requested).map((r) => r.run_id),
      lost: rows.filter((r) => r.lost).map((r) => r.run_id),
    };
  }

  async releaseRun(runId: string, driver: string): Promise<boolean> {
    const { rows } = await this.#query<{ released: boolean }>(
      "release_run",
      `WITH changed AS (
         UPDATE serve_runs SET driver = NULL, lease_until = 0
           WHERE run_id = $1 AND driver = $2 AND status = 'running' RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM changed) AS released,
         pg_notify($3, CASE WHEN EXISTS (SELECT 1 FROM changed) THEN $4 ELSE $5 END)`,
      [
        runId,
        driver,
        NOTICE_CHANNEL,
        this.#notice({ kind: "released", runId }),
        this.#notice({ kind: "items", runId }),
      ],
    );
    return rows[0]?.released === true;
  }

  async requestCancel(runId: string): Promise<void> {
    await this.#query(
      "request_cancel",
      `WITH changed AS (
         UPDATE serve_runs SET cancel_requested = true WHERE run_id = $1 AND status = 'running' RETURNING 1)
       SELECT pg_notify($2, $3)`,
      [runId, NOTICE_CHANNEL, this.#notice({ kind: "cancel", runId })],
    );
  }

  async append(runId: string, entries: readonly LogEntry[], driver?: string): Promise<void> {
    if (entries.length === 0) return;
    // One statement: the items, the run's last sequence number and the notice commit together. The
    // run's row is updated first (its lock taken) and only while `driver` drives it: the fence.
    const { rows } = await this.#query<{ written: boolean }>(
      "append",
      `WITH run AS (UPDATE serve_runs SET last_seq = $4, updated_at = $5
           WHERE run_id = $1 AND ($8::text IS NULL OR driver = $8::text) RETURNING 1),
       items AS (
         INSERT INTO serve_items (run_id, seq, item)
           SELECT $1, s, i::json FROM unnest($2::int[], $3::text[]) AS t(s, i) WHERE EXISTS (SELECT 1 FROM run)
           RETURNING 1)
       SELECT EXISTS (SELECT 1 FROM run) AS written, pg_notify($6, $7)`,
      [
        runId,
        entries.map((e) => e.seq),
        entries.map((e) => JSON.stringify(e.item)),
        (entries.at(-1) as LogEntry).seq,
        Date.now(),
        NOTICE_CHANNEL,
        this.#notice({ kind: "items", runId }),
        driver ?? null,
      ],
    );
    if (driver !== undefined && rows[0]?.written !== true) throw new LeaseLostError(runId);
  }

  async read(runId: string, afterSeq: number, limit: number): Promise<LogEntry[]> {
    const { rows } = await this.#query<{ seq: number; item: LogEntry["item"] }>(
      "read",
      "SELECT seq, item FROM serve_items WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
      [runId, afterSeq, limit],
    );
    return rows.map((r) => ({ seq: r.seq, item: r.item }));
  }

  async addApprovals(
    runId: string,
    approvals: readonly (ApprovalItem & { validated: string })[],
    driver?: string,
  ): Promise<void> {
    if (approvals.length === 0) return;
    const { rowCount } = await this.#query(
      "add_approvals",
      `INSERT INTO serve_approvals (approval_id, run_id, tool_call_id, tool_name, input, validated)
         SELECT a, $1, c, n, i::json, v::json
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(a, c, n, i, v)
         WHERE $7::text IS NULL OR EXISTS (SELECT 1 FROM serve_runs WHERE run_id = $1 AND driver = $7::text)`,
      [
        runId,
        approvals.map((a) => a.approvalId),
        approvals.map((a) => a.toolCallId),
        approvals.map((a) => a.toolName),
        approvals.map((a) => JSON.stringify(a.input)),
        approvals.map((a) => JSON.stringify(a.validated)),
        driver ?? null,
      ],
    );
    if (driver !== undefined && rowCount === 0) throw new LeaseLostError(runId);
  }

  async getApproval(approvalId: string): Promise<ApprovalRecord | undefined> {
    const { rows } = await this.#query<ApprovalRow>(
      "get_approval",
      `SELECT ${APPROVAL_COLUMNS} FROM serve_approvals WHERE approval_id = $1`,
      [approvalId],
    );
    return rows[0] && pgApproval(rows[0]);
  }

  async openApprovals(runId: string): Promise<ApprovalRecord[]> {
    const { rows } = await this.#query<ApprovalRow>(
      "open_approvals",
      `SELECT ${APPROVAL_COLUMNS} FROM serve_approvals WHERE run_id = $1 AND decided IS NULL ORDER BY ord`,
      [runId],
    );
    return rows.map(pgApproval);
  }

  async decide(
    decisions: readonly { approvalId: string; approved: boolean; reason?: string }[],
  ): Promise<boolean> {
    const at = Date.now();
    try {
      await this.#tx(async (c) => {
        // Two processes deciding at once: the second waits on the row locks, then finds them decided.
        const { rowCount } = await c.query(
          `UPDATE serve_approvals a SET decided = d.decided::json
             FROM unnest($1::text[], $2::text[]) AS d(id, decided)
             WHERE a.approval_id = d.id AND a.decided IS NULL`,
          [
            decisions.map((d) => d.approvalId),
            decisions.map((d) =>
              JSON.stringify({ approved: d.approved, ...(d.reason && { reason: d.reason }), at }),
            ),
          ],
        );
        // A decision already taken rolls the whole batch back: all or none.
        if (rowCount !== decisions.length) throw new AlreadyDecided();
      }, "write");
      return true;
    } catch (error) {
      if (error instanceof AlreadyDecided) return false;
      throw error;
    }
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

class AlreadyDecided extends Error {}

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

function pgChat(row: ChatRow): ChatRecord {
  return chatOf({ ...row, title: JSON.parse(row.title) as string });
}

function pgRun(row: RunRow): RunRecord {
  return runOf({ ...row, input: JSON.parse(row.input) as string });
}

function pgApproval(row: ApprovalRow): ApprovalRecord {
  return approvalOf({ ...row, validated: JSON.parse(row.validated) as string });
}
