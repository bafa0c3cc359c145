import type { RunUsage } from "../../core/vocabulary/usage.js";
import { NOTICE_CHANNEL, RUN_COLUMNS } from "../postgres-serve-schema.js";
import type { NewServeRun, RunQuery, RunRecord, ServeRunStatus } from "../serve-log.js";
import { type RunRow, runOf, turnOf } from "../sqlite-serve-rows.js";
import type { PgServeDb } from "./db.js";

/** Records a new run, `running` (see `ServeLog.createRun`). */
export async function createRun(db: PgServeDb, run: NewServeRun): Promise<void> {
  const now = Date.now();
  await db.query(
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

/** A run, or undefined. */
export async function getRun(db: PgServeDb, runId: string): Promise<RunRecord | undefined> {
  const { rows } = await db.query<RunRow>(
    "get_run",
    `SELECT ${RUN_COLUMNS} FROM serve_runs WHERE run_id = $1`,
    [runId],
  );
  return rows[0] && pgRun(rows[0]);
}

/** A chat's runs, oldest first. */
export async function listChatRuns(db: PgServeDb, principal: string, chatId: string): Promise<RunRecord[]> {
  const { rows } = await db.query<RunRow>(
    "list_chat_runs",
    `SELECT ${RUN_COLUMNS} FROM serve_runs WHERE principal = $1 AND chat_id = $2 ORDER BY created_at, ord`,
    [principal, chatId],
  );
  return rows.map(pgRun);
}

/** A page of runs and how many match without the page bounds (see `ServeLog.listRuns`). */
export async function listRuns(
  db: PgServeDb,
  query: RunQuery,
): Promise<{ runs: RunRecord[]; total: number }> {
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
  return db.tx(async (c) => {
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

/** Runs whose status says a process is driving them. */
export async function listRunning(db: PgServeDb): Promise<RunRecord[]> {
  const { rows } = await db.query<RunRow>(
    "list_running",
    `SELECT ${RUN_COLUMNS} FROM serve_runs WHERE status = 'running' ORDER BY created_at, ord`,
    [],
  );
  return rows.map(pgRun);
}

/** Sets a run's status, announced; with `driver`, only while `driver` drives it. */
export async function setRunStatus(
  db: PgServeDb,
  runId: string,
  status: ServeRunStatus,
  usage?: RunUsage,
  driver?: string,
): Promise<void> {
  await db.query(
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
      db.notice({ kind: "items", runId }),
      driver ?? null,
    ],
  );
}

/** How many of a person's runs are running. */
export async function countActiveRuns(db: PgServeDb, principal: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "count_active",
    "SELECT count(*) AS n FROM serve_runs WHERE principal = $1 AND status = 'running'",
    [principal],
  );
  return Number(rows[0]?.n ?? 0);
}

function pgRun(row: RunRow): RunRecord {
  return runOf({ ...row, input: JSON.parse(row.input) as string });
}
