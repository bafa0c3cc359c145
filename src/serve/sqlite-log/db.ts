import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type Database from "better-sqlite3";

/**
 * What the SQLite serve log's statements need of the log: the open database and its statements,
 * prepared once per SQL text. The log (sqlite-serve-log.ts) owns the file and hands this to the
 * functions of each concept (chats, runs, leases, items, approvals), which stay plain functions.
 */
export interface SqliteServeDb {
  readonly db: Database.Database;
  /** The statement for `text`, prepared on first use. */
  sql(text: string): Database.Statement;
}

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

/** Opens (or creates) the serve log's file, WAL, with its tables brought up to date. */
export function openServeDb(path: string): SqliteServeDb {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const Driver = createRequire(import.meta.url)("better-sqlite3") as typeof Database;
  const db = new Driver(path, { timeout: 5_000 });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(SCHEMA);
  // Logs written before runs kept their session and files, or their driver, get the columns, empty on old rows.
  const columns = new Set((db.pragma("table_info(serve_runs)") as { name: string }[]).map((c) => c.name));
  for (const [name, type] of ADDED_COLUMNS)
    if (!columns.has(name)) db.exec(`alter table serve_runs add column ${name} ${type}`);
  // Prepared once per SQL text: preparing costs more than most of these statements take to run.
  const statements = new Map<string, Database.Statement>();
  return {
    db,
    sql(text) {
      let statement = statements.get(text);
      if (!statement) {
        statement = db.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/** The process driving `runId` now (null: none; undefined: no such run): what a fenced write checks. */
export function driverOf(db: SqliteServeDb, runId: string): string | null | undefined {
  return db.sql("select driver from serve_runs where run_id = ?").pluck().get(runId) as
    | string
    | null
    | undefined;
}
