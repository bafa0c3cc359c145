import type Database from "better-sqlite3";
import { SchemaTooNewError } from "../errors.js";

/** One schema change; versions count up from 1 and are recorded in `PRAGMA user_version`. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

/**
 * The SQLite schema history. Never edit a shipped migration: append a new one, so every
 * database, whatever version wrote it, reaches the same schema.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "runs with checkpoints, sessions, notes with full-text search",
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        model TEXT NOT NULL,
        input TEXT NOT NULL,
        status TEXT NOT NULL,
        owner_pid INTEGER NOT NULL,
        owner_host TEXT NOT NULL,
        session_id TEXT,
        session_offset INTEGER,
        session_base INTEGER,
        session_version INTEGER,
        usage TEXT NOT NULL,
        progress TEXT NOT NULL,
        output TEXT,
        error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX runs_by_session ON runs(session_id);
      CREATE INDEX runs_by_status ON runs(status, updated_at);
      -- Transcripts only grow, so a checkpoint appends rows instead of rewriting a blob.
      CREATE TABLE run_messages (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE run_steps (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        step_index INTEGER NOT NULL, -- the step's number (StepUsage.step)
        usage TEXT NOT NULL,
        PRIMARY KEY (run_id, step_index)
      ) WITHOUT ROWID;
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        lock_run_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE session_messages (
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        message TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) WITHOUT ROWID;
      CREATE TABLE notes (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        text TEXT NOT NULL,
        metadata TEXT NOT NULL,
        embedding BLOB,
        embedding_model TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX notes_by_scope ON notes(scope, embedding_model);
      CREATE VIRTUAL TABLE notes_fts USING fts5(
        text, content='notes', content_rowid='id', tokenize='porter unicode61'
      );
      CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
        INSERT INTO notes_fts(rowid, text) VALUES (new.id, new.text);
      END;
      CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
        INSERT INTO notes_fts(notes_fts, rowid, text) VALUES ('delete', old.id, old.text);
      END;
      CREATE TRIGGER notes_au AFTER UPDATE OF text ON notes BEGIN
        INSERT INTO notes_fts(notes_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO notes_fts(rowid, text) VALUES (new.id, new.text);
      END;
    `,
  },
  {
    version: 2,
    description: "the tools each run was started with (resume offers exactly those)",
    // Nullable: runs stored before version 2 have no record, and stay readable.
    sql: "ALTER TABLE runs ADD COLUMN tools TEXT;",
  },
  {
    version: 3,
    description: "the calls of the turn in progress, one row each",
    sql: `
      -- One row per call of the turn in progress, so a checkpoint after one call writes that call
      -- alone (runs.progress keeps the loop guard; its "pending" is only read from older databases).
      CREATE TABLE run_calls (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        call_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        pending TEXT NOT NULL,
        PRIMARY KEY (run_id, call_id)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 4,
    description: "the owner's lease and the fencing token of each run",
    sql: `
      -- Until when the owner's claim holds unless renewed (ms); NULL: no lease (older runs, the CLI).
      ALTER TABLE runs ADD COLUMN lease_until INTEGER;
      -- One more at every claim: a write carrying an older token comes from a process that lost the run.
      ALTER TABLE runs ADD COLUMN fence INTEGER NOT NULL DEFAULT 0;
    `,
  },
];

/** The newest schema version this code knows. */
export const SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0;

/**
 * Brings the database up to `SCHEMA_VERSION`, each migration in its own transaction. A database
 * from a newer glassloop is refused rather than guessed at.
 */
export function migrate(db: Database.Database, file: string, migrations = MIGRATIONS): void {
  const latest = migrations.at(-1)?.version ?? 0;
  const version = () => db.pragma("user_version", { simple: true }) as number;
  const current = version();
  if (current > latest) throw new SchemaTooNewError(file, current, latest);
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      // Re-read under the write lock: another process may have migrated since we looked.
      if (version() >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}
