/**
 * Opening a pool on glassloop's Postgres schema and running one transaction on it: what the
 * Postgres store and every other table set that lives beside it (the serve log) share, so they
 * connect, migrate, fail and name their server the same way.
 */
import { hostname } from "node:os";
import { ConfigError } from "../../core/errors.js";
import { loadPg, type PgClient, type PgPool, pgTypes } from "./pg-driver.js";
import { describeUrl, translatePgError } from "./pg-errors.js";
import { migratePg, type PgMigration, quoteIdent } from "./pg-migrations.js";

/** How the Postgres store connects. */
export interface PostgresOptions {
  /** `postgres://user:password@host:port/database`; default `GLASSLOOP_POSTGRES_URL`. */
  url?: string;
  /** The schema that holds glassloop's tables, created if missing (default `glassloop`). */
  schema?: string;
  /** Connections in the pool (default 10). */
  maxConnections?: number;
  /** How long connecting may take before DatabaseOpenError (default 10,000 ms). */
  connectTimeoutMs?: number;
  /** How long a write waits for another process's row lock before DatabaseLockedError (default 5,000 ms). */
  lockTimeoutMs?: number;
}

/** A pool on one schema, not yet migrated. */
export interface PgTarget {
  pool: PgPool;
  /** The server and database, without the password; every error names it. */
  location: string;
  schema: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks the options and makes the pool (no connection yet). `who` names the caller in the
 * error a missing URL gets. A bad URL or schema name is a ConfigError that never quotes the URL.
 */
export function openPgPool(options: PostgresOptions, who: string): PgTarget {
  const url = options.url ?? process.env.GLASSLOOP_POSTGRES_URL;
  if (url === undefined || url === "")
    throw new ConfigError(`${who} needs a URL: pass { url } or set GLASSLOOP_POSTGRES_URL`);
  const schema = options.schema ?? "glassloop";
  if (!SCHEMA_NAME.test(schema))
    throw new ConfigError(
      `Invalid schema name ${JSON.stringify(schema)}: use a-z, 0-9 and _, up to 63 characters`,
    );
  const location = describeUrl(url);
  // Named by its length only: a string that is not a URL may be a secret pasted in the wrong place.
  if (location === undefined)
    throw new ConfigError(
      `The Postgres URL (${url.length} characters) is not a valid Postgres URL: use postgres://user:password@host:port/database`,
    );
  const pg = loadPg();
  const lockTimeout = options.lockTimeoutMs ?? 5_000;
  let pool: PgPool;
  try {
    pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      // Unqualified table names resolve in glassloop's schema; row locks wait a bounded time.
      options: `-c search_path=${quoteIdent(schema)} -c lock_timeout=${Math.max(1, Math.floor(lockTimeout))}`,
      application_name: `glassloop ${hostname()}:${process.pid}`,
      types: pgTypes(pg),
    });
  } catch {
    // pg parses the URL in the constructor: the cause would quote it, password and all.
    throw new ConfigError(
      `${location} is not a valid Postgres URL: use postgres://user:password@host:port/database`,
    );
  }
  // An idle connection the server drops must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  return { pool, location, schema };
}

/**
 * Brings the target's tables up to date (`migrations`, versioned in `versionTable`); a failure
 * ends the pool and is translated to a StoreError naming the server.
 */
export async function migrateTarget(
  target: PgTarget,
  migrations?: readonly PgMigration[],
  versionTable?: string,
): Promise<void> {
  try {
    const client = await target.pool.connect();
    try {
      await migratePg(client, target.schema, target.location, migrations, versionTable);
    } finally {
      client.release();
    }
  } catch (error) {
    await target.pool.end().catch(() => {});
    throw translatePgError(error, target.location);
  }
}

/**
 * One transaction on one pooled connection. Reads run in a REPEATABLE READ snapshot, so rows are
 * read as of one moment; writes in READ COMMITTED with row locks; `single` work is one statement,
 * a transaction by itself.
 */
export async function pgTransaction<T>(
  target: Pick<PgTarget, "pool" | "location">,
  work: (client: PgClient) => Promise<T>,
  kind: "read" | "write" | "single" = "write",
): Promise<T> {
  let client: PgClient;
  try {
    client = await target.pool.connect();
  } catch (error) {
    throw translatePgError(error, target.location);
  }
  let broken: Error | undefined;
  const single = kind === "single";
  try {
    if (!single)
      await client.query(kind === "read" ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN");
    const result = await work(client);
    if (!single) await client.query("COMMIT");
    return result;
  } catch (error) {
    if (!single) {
      await client.query("ROLLBACK").catch((rollback: Error) => {
        broken = rollback;
      });
    }
    throw translatePgError(error, target.location);
  } finally {
    // A connection that cannot even roll back is dropped rather than handed to the next caller.
    client.release(broken);
  }
}
