/**
 * The serve log's tables on Postgres, beside the store's in the same schema, versioned on their
 * own (`serve_schema_version`) so the store's migrations and these never wait on each other's
 * numbers. Text a person or a model wrote is kept as `json` (any string, a NUL included, round-trips
 * there; Postgres `text` refuses NUL).
 */
import type { PgMigration } from "../store/postgres/pg-migrations.js";

/** Where the serve log records its schema version. */
export const SERVE_VERSION_TABLE = "serve_schema_version";

/** The serve log's schema history. Never edit a shipped migration: append one. */
export const SERVE_PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    description: "chats, runs with their driver's lease, stream items, approvals",
    sql: `
      CREATE TABLE serve_chats (
        principal text NOT NULL,
        chat_id text NOT NULL,
        agent text NOT NULL,
        title json NOT NULL,
        active_run text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        PRIMARY KEY (principal, chat_id)
      );
      CREATE TABLE serve_runs (
        run_id text PRIMARY KEY,
        -- Insertion order: runs created in one millisecond keep the order they were made in.
        ord bigserial NOT NULL,
        principal text NOT NULL,
        chat_id text NOT NULL,
        agent text NOT NULL,
        model text NOT NULL,
        input json NOT NULL,
        status text NOT NULL,
        usage json,
        turn json,
        last_seq integer NOT NULL DEFAULT -1,
        driver text,
        lease_until bigint,
        cancel_requested boolean NOT NULL DEFAULT false,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX serve_runs_chat ON serve_runs (principal, chat_id, created_at, ord);
      CREATE INDEX serve_runs_status ON serve_runs (status);
      CREATE INDEX serve_runs_listed ON serve_runs (principal, agent, updated_at);
      CREATE INDEX serve_runs_driver ON serve_runs (driver) WHERE status = 'running';
      CREATE TABLE serve_items (
        run_id text NOT NULL,
        seq integer NOT NULL,
        item json NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE serve_approvals (
        approval_id text PRIMARY KEY,
        ord bigserial NOT NULL,
        run_id text NOT NULL,
        tool_call_id text NOT NULL,
        tool_name text NOT NULL,
        input json NOT NULL,
        validated json NOT NULL,
        decided json
      );
      CREATE INDEX serve_approvals_run ON serve_approvals (run_id);
    `,
  },
];

/** serve_runs' columns, the JSON ones as text, in the shape of a SQLite row (input still JSON-encoded). */
export const RUN_COLUMNS = `run_id, principal, chat_id, agent, model, input::text AS input, status,
  usage::text AS usage, turn::text AS turn, last_seq, driver, lease_until,
  (CASE WHEN cancel_requested THEN 1 ELSE 0 END) AS cancel_requested, created_at, updated_at`;

/** serve_chats' columns, the title JSON-encoded. */
export const CHAT_COLUMNS =
  "principal, chat_id, agent, title::text AS title, active_run, created_at, updated_at";

/** serve_approvals' columns, the JSON ones as text (validated still JSON-encoded). */
export const APPROVAL_COLUMNS = `approval_id, run_id, tool_call_id, tool_name, input::text AS input,
  validated::text AS validated, decided::text AS decided`;

/** The channel every serve log on a server notifies on; a notice names its schema. */
export const NOTICE_CHANNEL = "glassloop_serve";
