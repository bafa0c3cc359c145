import { SchemaTooNewError } from "../errors.js";
import type { PgClient } from "./pg-driver.js";

/** One schema change of the Postgres store; versions count up from 1, recorded in `schema_version`. */
export interface PgMigration {
  version: number;
  description: string;
  sql: string;
}

/**
 * The Postgres schema history (the same tables as the SQLite store, in a schema of their own).
 * Never edit a shipped migration: append a new one, so every database reaches the same schema.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    description: "runs with checkpoints and per-call rows, sessions, notes with tsvector search and vectors",
    sql: `
      CREATE TABLE runs (
        id text PRIMARY KEY,
        agent text NOT NULL,
        model text NOT NULL,
        input json NOT NULL, -- JSON text, so any string (a NUL included) round-trips
        status text NOT NULL,
        owner_pid integer NOT NULL,
        owner_host text NOT NULL,
        session_id text,
        session_offset integer,
        session_base integer,
        session_version integer,
        usage json NOT NULL,
        progress json NOT NULL,
        tools json,
        output json,
        error json,
        -- How many messages the transcript holds, so a checkpoint checks its place without a scan.
        message_count integer NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE INDEX runs_by_session ON runs (session_id);
      CREATE INDEX runs_by_status ON runs (status, updated_at);
      CREATE INDEX runs_by_created ON runs (created_at DESC, id);
      -- json, not jsonb: the text is kept exactly as written (key order, escapes).
      CREATE TABLE run_messages (
        run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        message json NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE run_steps (
        run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        step_index integer NOT NULL,
        usage json NOT NULL,
        PRIMARY KEY (run_id, step_index)
      );
      CREATE TABLE run_calls (
        run_id text NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        call_id text NOT NULL,
        seq integer NOT NULL,
        pending json NOT NULL,
        PRIMARY KEY (run_id, call_id)
      );
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        version integer NOT NULL,
        lock_run_id text,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL
      );
      CREATE TABLE session_messages (
        session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        message json NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE notes (
        id bigserial PRIMARY KEY,
        scope text NOT NULL,
        text text NOT NULL,
        metadata json NOT NULL,
        -- Unit length (normalized on write), so cosine similarity is a dot product.
        embedding real[],
        embedding_model text,
        created_at bigint NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
      );
      CREATE INDEX notes_by_scope ON notes (scope, embedding_model);
      CREATE INDEX notes_fts ON notes USING gin (tsv);
    `,
  },
  {
    version: 2,
    description: "the owner's lease and the fencing token of each run",
    sql: `
      -- Until when the owner's claim holds unless renewed (ms); NULL: no lease (older runs, the CLI).
      ALTER TABLE runs ADD COLUMN lease_until bigint;
      -- One more at every claim: a write carrying an older token comes from a process that lost the run.
      ALTER TABLE runs ADD COLUMN fence integer NOT NULL DEFAULT 0;
    `,
  },
];

/** The newest Postgres schema version this code knows. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.at(-1)?.version ?? 0;

/**
 * Brings `schema` up to date in one transaction under an advisory lock, so processes that open the
 * store at the same moment migrate once. A schema from a newer glassloop is refused. Each table set
 * (the store's, the serve log's) keeps its own version in its own `versionTable`.
 */
export async function migratePg(
  client: PgClient,
  schema: string,
  location: string,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
  versionTable = "schema_version",
): Promise<void> {
  const latest = migrations.at(-1)?.version ?? 0;
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`glassloop:migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoteIdent(versionTable)} (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), version integer NOT NULL)`,
    );
    const found = await client.query<{ version: number }>(`SELECT version FROM ${quoteIdent(versionTable)}`);
    const current = found.rows[0]?.version ?? 0;
    if (current > latest) throw new SchemaTooNewError(location, current, latest);
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
    }
    if (current < latest) {
      await client.query(
        `INSERT INTO ${quoteIdent(versionTable)} (version) VALUES ($1) ON CONFLICT (only_row) DO UPDATE SET version = excluded.version`,
        [latest],
      );
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

/** A schema name as a quoted identifier (names are checked when the store is configured). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
