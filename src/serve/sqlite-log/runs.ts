import type { RunUsage } from "../../core/vocabulary/usage.js";
import type { NewServeRun, RunQuery, RunRecord, ServeRunStatus } from "../serve-log.js";
import { type RunRow, runOf, turnOf } from "../sqlite-serve-rows.js";
import type { SqliteServeDb } from "./db.js";

/** Records a new run, `running` (see `ServeLog.createRun`). */
export function createRun(db: SqliteServeDb, run: NewServeRun): void {
  const now = Date.now();
  db.sql(
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

/** A run, or undefined. */
export function getRun(db: SqliteServeDb, runId: string): RunRecord | undefined {
  const row = db.sql("select * from serve_runs where run_id = ?").get(runId) as RunRow | undefined;
  return row && runOf(row);
}

/** A chat's runs, oldest first. */
export function listChatRuns(db: SqliteServeDb, principal: string, chatId: string): RunRecord[] {
  const rows = db
    .sql("select * from serve_runs where principal = ? and chat_id = ? order by created_at, rowid")
    .all(principal, chatId) as RunRow[];
  return rows.map(runOf);
}

/** A page of runs and how many match without the page bounds (see `ServeLog.listRuns`). */
export function listRuns(db: SqliteServeDb, query: RunQuery): { runs: RunRecord[]; total: number } {
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
  const { n } = db.sql(`select count(*) as n from serve_runs where ${filter}`).get(...args) as { n: number };
  const page = query.after ? " and (updated_at < ? or (updated_at = ? and run_id < ?))" : "";
  const pageArgs = query.after ? [query.after.updatedAt, query.after.updatedAt, query.after.runId] : [];
  const rows = db
    .sql(`select * from serve_runs where ${filter}${page} order by updated_at desc, run_id desc limit ?`)
    .all(...args, ...pageArgs, query.limit) as RunRow[];
  return { runs: rows.map(runOf), total: n };
}

/** Runs whose status says a process is driving them. */
export function listRunning(db: SqliteServeDb): RunRecord[] {
  const rows = db
    .sql("select * from serve_runs where status = 'running' order by created_at")
    .all() as RunRow[];
  return rows.map(runOf);
}

/** Sets a run's status; with `driver`, only while `driver` drives it. */
export function setRunStatus(
  db: SqliteServeDb,
  runId: string,
  status: ServeRunStatus,
  usage?: RunUsage,
  driver?: string,
): void {
  db.sql(
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

/** How many of a person's runs are running. */
export function countActiveRuns(db: SqliteServeDb, principal: string): number {
  const row = db
    .sql("select count(*) as n from serve_runs where principal = ? and status = 'running'")
    .get(principal) as {
    n: number;
  };
  return row.n;
}
