/**
 * The stores the shared contract tests run against: SQLite (a fresh file per test) and Postgres
 * (a fresh schema per test on the shared test server). `open()` opens another connection to the
 * same database, as a second process would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "glassloop";
import { PostgresStore } from "glassloop/postgres";
import { SqliteStore } from "glassloop/store";
import { freshSchema, POSTGRES_SKIP, postgresUrl } from "./postgres.js";

/** One store implementation under test. */
export interface Backend {
  name: string;
  /** Why it is skipped here, if it is. */
  skip: string | undefined;
  /** Picks a fresh database for the next test. */
  fresh(): Promise<void>;
  /** Opens a store (another connection) on the current test's database. */
  open(): Promise<Store>;
  /** The `location` every error of the current database names. */
  location(): string;
  /** Closes every store opened and removes the database. */
  cleanup(): Promise<void>;
}

function sqlite(): Backend {
  let dir = "";
  let file = "";
  const opened: SqliteStore[] = [];
  return {
    name: "SqliteStore",
    skip: undefined,
    async fresh() {
      dir = mkdtempSync(join(tmpdir(), "glassloop-contract-"));
      file = join(dir, "nested", "test.db");
    },
    async open() {
      const store = new SqliteStore({ path: file });
      opened.push(store);
      return store;
    },
    location: () => file,
    async cleanup() {
      for (const s of opened.splice(0)) s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgres(): Backend {
  let url = "";
  let schema = "";
  let location = "";
  const opened: PostgresStore[] = [];
  return {
    name: "PostgresStore",
    skip: POSTGRES_SKIP,
    async fresh() {
      url = await postgresUrl();
      schema = freshSchema();
    },
    async open() {
      const store = await PostgresStore.connect({ url, schema });
      location = store.location;
      opened.push(store);
      return store;
    },
    location: () => location,
    // The schema stays: the whole cluster is thrown away when the run ends.
    async cleanup() {
      await Promise.all(opened.splice(0).map((s) => s.close()));
    },
  };
}

/** Every backend, SQLite first. */
export const BACKENDS: readonly Backend[] = [sqlite(), postgres()];
