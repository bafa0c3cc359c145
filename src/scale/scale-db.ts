import { hostname } from "node:os";
import { ConfigError } from "../core/errors.js";
import { loadPg, type PgPool, pgTypes } from "../store/postgres/pg-driver.js";
import { describeUrl, translatePgError } from "../store/postgres/pg-errors.js";
import { quoteIdent } from "../store/postgres/pg-migrations.js";

/** The schema of glassloop's own scale-out tables (worker leases, run events); DBOS keeps its own. */
export const SCALE_SCHEMA = "glassloop_scale";

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The database's clock in milliseconds: leases compare one clock, never two machines' clocks. */
export const NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

const TABLES = `
create table if not exists workers (
  executor_id text primary key,
  instance text not null,
  pid integer not null,
  host text not null,
  started_at bigint not null,
  lease_until bigint not null,
  adopted_by text,
  adopted_at bigint
);
create table if not exists run_events (
  run_id text not null,
  op integer not null,
  seq integer not null,
  worker text not null,
  at bigint not null,
  event json not null,
  primary key (run_id, op, seq)
);
create table if not exists tool_starts (
  run_id text not null,
  op integer not null,
  worker text not null,
  at bigint not null,
  primary key (run_id, op)
);`;

/** A pool on the scale tables' schema, which `open` creates if needed. */
export interface ScaleDb {
  readonly pool: PgPool;
  readonly location: string;
  close(): Promise<void>;
}

/** Connects and creates the scale tables (under an advisory lock, so workers starting together create them once). */
export async function openScaleDb(url: string, schema = SCALE_SCHEMA, maxConnections = 4): Promise<ScaleDb> {
  if (!SCHEMA_NAME.test(schema))
    throw new ConfigError(
      `Invalid schema name ${JSON.stringify(schema)}: use a-z, 0-9 and _, up to 63 characters`,
    );
  const location = describeUrl(url);
  if (location === undefined)
    throw new ConfigError(
      `The Postgres URL (${url.length} characters) is not a valid Postgres URL: use postgres://user:password@host:port/database`,
    );
  const pg = loadPg();
  let pool: PgPool;
  try {
    pool = new pg.Pool({
      connectionString: url,
      max: maxConnections,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      options: `-c search_path=${quoteIdent(schema)}`,
      application_name: `glassloop scale ${hostname()}:${process.pid}`,
      types: pgTypes(pg),
    });
  } catch {
    throw new ConfigError(`The Postgres URL for ${location} could not be parsed`);
  }
  pool.on("error", () => {
    // An idle connection dropped by the server; the next query reconnects.
  });
  try {
    const client = await pool.connect();
    try {
      await client.query("begin");
      await client.query("select pg_advisory_xact_lock(hashtext('glassloop_scale_schema'))");
      await client.query(`create schema if not exists ${quoteIdent(schema)}`);
      await client.query(TABLES);
      await client.query("commit");
    } catch (error) {
      await client.query("rollback").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw translatePgError(error, location);
  }
  let closed: Promise<void> | undefined;
  return {
    pool,
    location,
    close: () => {
      closed ??= pool.end();
      return closed;
    },
  };
}

/**
 * Runs `work` holding a database-wide advisory lock: workers starting together on a new database
 * would otherwise race DBOS's own migrations (one of them fails on a half-made schema). The lock
 * is tried, not waited for: DBOS builds indexes `CONCURRENTLY`, which waits for every open
 * transaction, a blocked `pg_advisory_lock` call included, so waiting inside a query would
 * deadlock with the migration it waits for.
 */
export async function whileLocked<T>(db: ScaleDb, work: () => Promise<T>): Promise<T> {
  const client = await db.pool.connect();
  try {
    for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
      const { rows } = await client.query<{ locked: boolean }>(
        "select pg_try_advisory_lock(hashtext('glassloop_scale_dbos_migrate')) as locked",
      );
      if (rows[0]?.locked) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    try {
      return await work();
    } finally {
      await client.query("select pg_advisory_unlock(hashtext('glassloop_scale_dbos_migrate'))");
    }
  } finally {
    client.release();
  }
}
