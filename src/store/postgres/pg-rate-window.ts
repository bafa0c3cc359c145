/**
 * The shared rate limit's tables and its one look at the window: what `PostgresRateLimiter` runs
 * at the database. The places in the window live in a table, taken under a per-key advisory lock,
 * on the database's clock (the workers' clocks may differ).
 */
import { randomUUID } from "node:crypto";
import { type RateLimits, type RateLimitWait, windowBlock } from "../../models/rate-limit/limiter.js";
import type { PgPool } from "./pg-driver.js";
import { quoteIdent } from "./pg-migrations.js";

/** The limiter's two tables, quoted and qualified by their schema. */
export interface RateTables {
  places: string;
  pauses: string;
}

/** The tables of the limiter in `schema` (a checked schema name). */
export function rateTables(schema: string): RateTables {
  const s = quoteIdent(schema);
  return { places: `${s}.rate_limit_places`, pauses: `${s}.rate_limit_pauses` };
}

interface PlaceRow {
  tokens: number;
  ends_at: number | null;
  lease_until: number;
}

/** What one look at the window needs: the key, the call's tokens, the limits in force, and a place's lease. */
export interface WindowLook {
  key: string;
  tokens: number;
  limits: Readonly<RateLimits>;
  windowMs: number;
  leaseMs: number;
}

/** One look at the shared window under the key's lock: the new place's permit id, or what holds it back. */
export async function takePlace(
  pool: PgPool,
  tables: RateTables,
  look: WindowLook,
): Promise<string | RateLimitWait> {
  const { key, tokens, limits, windowMs, leaseMs } = look;
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 7))", [`glassloop rate ${key}`]);
    const now = Number(
      (await client.query<{ now: number }>("SELECT extract(epoch from clock_timestamp()) * 1000 AS now"))
        .rows[0]?.now,
    );
    await client.query(
      `DELETE FROM ${tables.places} WHERE key = $1 AND coalesce(ends_at, lease_until) <= $2`,
      [key, now - windowMs],
    );
    const rows = (
      await client.query<PlaceRow>(
        `SELECT tokens, ends_at, lease_until FROM ${tables.places} WHERE key = $1`,
        [key],
      )
    ).rows;
    const pause = (
      await client.query<{ until_ms: number }>(`SELECT until_ms FROM ${tables.pauses} WHERE key = $1`, [key])
    ).rows[0]?.until_ms;
    const places = rows
      .map((r) => ({
        tokens: Number(r.tokens),
        // In flight: held until its answer; a dead process's place, until its lease ends.
        at:
          r.ends_at !== null
            ? Number(r.ends_at)
            : Number(r.lease_until) <= now
              ? Number(r.lease_until)
              : Number.POSITIVE_INFINITY,
      }))
      .sort((a, b) => a.at - b.at);
    const inFlight = places.filter((p) => p.at === Number.POSITIVE_INFINITY).length;
    const blocked =
      pause !== undefined && Number(pause) > now
        ? { limit: "rpm" as const, waitMs: Number(pause) - now }
        : windowBlock(places, inFlight, limits, tokens, now);
    if (blocked) {
      await client.query("COMMIT");
      return blocked;
    }
    const permit = randomUUID();
    await client.query(
      `INSERT INTO ${tables.places} (key, permit, first, tokens, ends_at, lease_until) VALUES ($1, $2, true, $3, NULL, $4)`,
      [key, permit, Math.max(0, Math.round(tokens)), now + leaseMs],
    );
    await client.query("COMMIT");
    return permit;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Creates the schema and the limiter's tables when missing. */
export async function createRateTables(pool: PgPool, schema: string, tables: RateTables): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // Two workers starting at once would race on CREATE ... IF NOT EXISTS without it.
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('glassloop rate limit tables', 7))");
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${tables.places} (
      id bigserial PRIMARY KEY,
      key text NOT NULL,
      permit uuid NOT NULL,
      first boolean NOT NULL,
      tokens bigint NOT NULL,
      ends_at double precision,
      lease_until double precision NOT NULL)`);
    await client.query(`CREATE INDEX IF NOT EXISTS rate_limit_places_key ON ${tables.places} (key, permit)`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${tables.pauses} (
      key text PRIMARY KEY,
      until_ms double precision NOT NULL)`);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
