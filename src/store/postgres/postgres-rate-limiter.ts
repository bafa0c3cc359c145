/**
 * One rate limit held by every process that shares a Postgres database: the workers of a
 * scale-out each call the same provider with the same key, and the provider counts them
 * together. The places in the window live in a table (pg-rate-window.ts), on the database's
 * clock; a call in flight holds its place until its answer, or until its lease runs out if its
 * process died.
 */
import { hostname } from "node:os";
import { ConfigError } from "../../core/errors.js";
import { sleep } from "../../core/sleep.js";
import { RateLimitError } from "../../models/errors.js";
import {
  type Limiter,
  type Permit,
  RateLimiter,
  type RateLimits,
  type RateLimitWait,
} from "../../models/rate-limit/limiter.js";
import { loadPg, type PgPool, pgTypes } from "./pg-driver.js";
import { describeUrl } from "./pg-errors.js";
import { createRateTables, type RateTables, rateTables, takePlace } from "./pg-rate-window.js";

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Options of {@link PostgresRateLimiter}: the limits, the key they hold for, and the database. */
export interface PostgresRateLimiterOptions extends RateLimits {
  /** Whose limit this is, e.g. `openai` or `openai:team-a`: every process using the key shares it. */
  key: string;
  /** The database; default `GLASSLOOP_POSTGRES_URL`. */
  url?: string;
  /** The schema of the limiter's two tables; default `glassloop` (the Postgres store's). */
  schema?: string;
  /** How long a call in flight keeps its place if its process dies first; default 15 minutes (a call's deadline). */
  leaseMs?: number;
  /** How often a call looks again while calls in flight elsewhere hold every place; default 25 ms. */
  pollMs?: number;
}

/**
 * A rate limiter shared through Postgres by every process using `key`: requests and tokens per
 * window and calls in flight, counted at the database, with the same rule as the in-process
 * `RateLimiter` (a request counts from when it is sent until a window after its answer). Pass it
 * as `rateLimited(model, { limiter })`. A provider's `Retry-After` pauses the key for every
 * process; ceilings learned from rate headers tighten this process's limiter only.
 */
export class PostgresRateLimiter implements Limiter {
  readonly key: string;
  readonly #pool: PgPool;
  readonly #tables: RateTables;
  readonly #local: RateLimiter;
  readonly #options: PostgresRateLimiterOptions;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  #queue: Promise<void> = Promise.resolve();
  // Bookkeeping after a permit is handed out (a retry's place, a release) is written in order;
  // a failure there surfaces on the next acquire rather than being lost.
  #writes: Promise<void> = Promise.resolve();
  #failure: unknown;

  private constructor(pool: PgPool, schema: string, options: PostgresRateLimiterOptions) {
    this.key = options.key;
    this.#pool = pool;
    this.#tables = rateTables(schema);
    const { key: _key, url: _url, schema: _schema, leaseMs, pollMs, ...limits } = options;
    this.#local = new RateLimiter(options.key, limits);
    this.#options = options;
    this.#leaseMs = leaseMs ?? 900_000;
    this.#pollMs = pollMs ?? 25;
  }

  /** Connects, creates the limiter's tables when missing, and returns the limiter. */
  static async connect(options: PostgresRateLimiterOptions): Promise<PostgresRateLimiter> {
    const url = options.url ?? process.env.GLASSLOOP_POSTGRES_URL;
    if (!url)
      throw new ConfigError("PostgresRateLimiter needs a URL: pass { url } or set GLASSLOOP_POSTGRES_URL");
    const location = describeUrl(url);
    if (location === undefined)
      throw new ConfigError(
        `The Postgres URL (${url.length} characters) is not a valid Postgres URL: use postgres://user:password@host:port/database`,
      );
    const schema = options.schema ?? "glassloop";
    if (!SCHEMA_NAME.test(schema))
      throw new ConfigError(
        `Invalid schema name ${JSON.stringify(schema)}: use a-z, 0-9 and _, up to 63 characters`,
      );
    if (!options.key) throw new ConfigError('PostgresRateLimiter needs a key, e.g. { key: "openai" }');
    const pg = loadPg();
    const pool = new pg.Pool({
      connectionString: url,
      max: 4,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 30_000,
      options: "-c lock_timeout=10000",
      application_name: `glassloop rate limit ${hostname()}:${process.pid}`,
      types: pgTypes(pg),
    });
    pool.on("error", () => {});
    const limiter = new PostgresRateLimiter(pool, schema, options);
    try {
      await createRateTables(pool, schema, limiter.#tables);
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    return limiter;
  }

  /** The limits in force: the configured ones, tightened by what this process learned from rate headers. */
  get limits(): Readonly<RateLimits> {
    return this.#local.limits;
  }

  /** Waits (this process's calls in arrival order) until the shared window has room, then takes a place. */
  acquire(tokens: number, signal: AbortSignal, onWait?: (info: RateLimitWait) => void): Promise<Permit> {
    const turn = this.#queue.then(() => this.#take(tokens, signal, onWait));
    this.#queue = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /** A provider's 429: its `Retry-After` pauses the key for every process; rate headers tighten this one. */
  learn(info: { retryAfterMs?: number; headers?: Readonly<Record<string, string>> }): void {
    this.#local.learn(info);
    const pause = info.retryAfterMs;
    if (pause === undefined || !(pause > 0)) return;
    this.#write(
      `INSERT INTO ${this.#tables.pauses} (key, until_ms) VALUES ($1, extract(epoch from clock_timestamp()) * 1000 + $2)
       ON CONFLICT (key) DO UPDATE SET until_ms = greatest(${this.#tables.pauses}.until_ms, excluded.until_ms)`,
      [this.key, pause],
    );
  }

  /** Waits for the bookkeeping still being written, then closes the connections. */
  async close(): Promise<void> {
    await this.#writes;
    await this.#pool.end();
  }

  async #take(tokens: number, signal: AbortSignal, onWait?: (info: RateLimitWait) => void): Promise<Permit> {
    await this.#writes;
    if (this.#failure !== undefined) {
      const failure = this.#failure;
      this.#failure = undefined;
      throw failure;
    }
    const limits = this.limits;
    const windowMs = limits.windowMs ?? 60_000;
    const maxWaitMs = this.#options.maxWaitMs ?? windowMs;
    const started = Date.now();
    let reportedHeld = false;
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const outcome = await takePlace(this.#pool, this.#tables, {
        key: this.key,
        tokens,
        limits: this.limits,
        windowMs,
        leaseMs: this.#leaseMs,
      });
      if (typeof outcome === "string") return this.#permit(outcome);
      if (outcome.limit === "concurrency" || !Number.isFinite(outcome.waitMs)) {
        // Held by calls in flight (here or in another process): their answers free the place.
        if (!reportedHeld) onWait?.({ limit: outcome.limit, waitMs: 0 });
        reportedHeld = true;
        await sleep(this.#pollMs, signal);
        continue;
      }
      const waited = Date.now() - started;
      if (waited + outcome.waitMs > maxWaitMs)
        throw new RateLimitError(
          `shared rate limit of "${this.key}": ${outcome.limit} full for another ${Math.ceil(outcome.waitMs)} ms, over the ${maxWaitMs} ms this call may wait`,
          { provider: "client" },
          outcome.waitMs,
        );
      onWait?.(outcome);
      await sleep(outcome.waitMs, signal);
    }
  }

  #permit(permit: string): Permit {
    let released = false;
    let sends = 0;
    return {
      sent: () => {
        // A retry is another request the provider counts: another place, for the same call.
        if (released || sends++ === 0) return;
        this.#write(
          `INSERT INTO ${this.#tables.places} (key, permit, first, tokens, ends_at, lease_until)
           VALUES ($1, $2, false, 0, NULL, extract(epoch from clock_timestamp()) * 1000 + $3)`,
          [this.key, permit, this.#leaseMs],
        );
      },
      release: (usedTokens) => {
        if (released) return;
        released = true;
        const used =
          usedTokens !== undefined && Number.isFinite(usedTokens) && usedTokens >= 0
            ? Math.round(usedTokens)
            : null;
        this.#write(
          `UPDATE ${this.#tables.places} SET ends_at = extract(epoch from clock_timestamp()) * 1000,
             tokens = CASE WHEN first AND $3::bigint IS NOT NULL THEN $3::bigint ELSE tokens END
           WHERE key = $1 AND permit = $2`,
          [this.key, permit, used],
        );
      },
    };
  }

  #write(sql: string, values: unknown[]): void {
    this.#writes = this.#writes.then(async () => {
      try {
        await this.#pool.query(sql, values);
      } catch (error) {
        this.#failure ??= error;
      }
    });
  }
}
