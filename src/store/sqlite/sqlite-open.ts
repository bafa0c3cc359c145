import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { GlassloopError } from "../../core/errors.js";
import { DatabaseCorruptError, DatabaseLockedError, DatabaseOpenError, StoreError } from "../errors.js";
import { migrate } from "./migrations.js";

/** How the embedded store opens its file. */
export interface SqliteOptions {
  /** The database file; `:memory:` for a throwaway one. Default: `GLASSLOOP_DB`, else `.glassloop/glassloop.db` under the working directory. */
  path?: string;
  /** How long a write waits for another process's lock before failing with DatabaseLockedError (default 5,000 ms). */
  busyTimeoutMs?: number;
  /**
   * `normal` (default) survives a crash of the process, the failure durable runs are about; `full`
   * also survives power loss, at the price of an fsync on every checkpoint.
   */
  synchronous?: "normal" | "full";
}

// better-sqlite3 is CommonJS and native; loading it on first use keeps `import "glassloop"` fast.
let driver: typeof Database | undefined;
function loadDriver(): typeof Database {
  driver ??= createRequire(import.meta.url)("better-sqlite3") as typeof Database;
  return driver;
}

/** Opens (creating if needed) a database in WAL mode and brings its schema up to date. */
export function openDatabase(file: string, options: SqliteOptions): Database.Database {
  if (file !== ":memory:") {
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (error) {
      throw new DatabaseOpenError(file, error);
    }
  }
  let db: Database.Database | undefined;
  try {
    const Driver = loadDriver();
    db = new Driver(file, { timeout: options.busyTimeoutMs ?? 5_000 });
    // The first statement reads the header: a corrupt or foreign file fails here.
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
    db.pragma("foreign_keys = ON");
    migrate(db, file);
    return db;
  } catch (error) {
    db?.close();
    throw translateError(error, file);
  }
}

/** What to run when better-sqlite3 is installed but its native binding was never built. */
export const SQLITE_BINDING_FIX = "npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3";

/** Turns a driver error into a StoreError that names the file; glassloop's own errors pass through. */
export function translateError(error: unknown, file: string): Error {
  if (error instanceof GlassloopError) return error;
  // The `bindings` package's words when better-sqlite3's install script never ran (npm 11 skips
  // scripts that are not approved, `--ignore-scripts` skips all).
  if (error instanceof Error && error.message.startsWith("Could not locate the bindings file")) {
    return new StoreError(
      "sqlite_binding_missing",
      file,
      `better-sqlite3 is installed without its native binding (its install script did not run). Build it with: ${SQLITE_BINDING_FIX}`,
      { cause: error },
    );
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
      return new DatabaseLockedError(file, error);
    if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT"))
      return new DatabaseCorruptError(file, error);
    if (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_PERM"))
      return new DatabaseOpenError(file, error);
    if (code.startsWith("SQLITE_")) {
      const detail = error instanceof Error ? error.message : code;
      return new StoreError("db_error", file, `The database ${file} failed: ${detail} (${code})`, {
        cause: error,
      });
    }
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** Parses JSON read back from the database; damage becomes a DatabaseCorruptError. */
export function parseStored<T>(text: string, file: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new DatabaseCorruptError(file, new Error(`${what} holds invalid JSON: ${String(error)}`));
  }
}
