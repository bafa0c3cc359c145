/**
 * Where a test's `glassloop serve` processes keep their store and log: two files in a fresh
 * directory (SQLite), or a fresh database on the test Postgres server (both in its default
 * schema, as replicas would share them). Each place is removed by `cleanup`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { POSTGRES_SKIP, postgresUrl } from "./postgres.js";

/** One fresh place for a store and a log, as `--db` and `--log` take them. */
export interface ServePlace {
  db: string;
  log: string;
  cleanup(): Promise<void>;
}

/** The two kinds of place; Postgres is skipped (with its reason) where it is not installed. */
export const SERVE_PLACES: { name: string; skip?: string; fresh(): Promise<ServePlace> }[] = [
  {
    name: "SQLite files",
    async fresh() {
      const dir = mkdtempSync(join(tmpdir(), "glassloop-serve-"));
      return {
        db: join(dir, "store.db"),
        log: join(dir, "serve.db"),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "Postgres",
    ...(POSTGRES_SKIP !== undefined && { skip: POSTGRES_SKIP }),
    async fresh() {
      const server = await postgresUrl();
      const name = `serve_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
      const admin = await adminClient(server);
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      const parsed = new URL(server);
      parsed.pathname = `/${name}`;
      const url = parsed.toString();
      return {
        db: url,
        log: url,
        cleanup: async () => {
          const drop = await adminClient(server);
          await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
          await drop.end();
        },
      };
    },
  },
];

interface AdminClient {
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
}

async function adminClient(url: string): Promise<AdminClient> {
  const { Client } = createRequire(import.meta.url)("pg") as {
    Client: new (config: { connectionString: string }) => AdminClient & { connect(): Promise<unknown> };
  };
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}
