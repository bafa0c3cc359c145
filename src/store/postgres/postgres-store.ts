import { hostname } from "node:os";
import { ConfigError } from "../../core/errors.js";
import type { Message } from "../../core/vocabulary/messages.js";
import type { StoredRunStatus } from "../../core/vocabulary/status.js";
import { sessionLinkOf } from "../run-row.js";
import type {
  ClaimExpectation,
  NewNote,
  NewRun,
  Note,
  RunCheckpoint,
  RunOwner,
  ScoredNote,
  SessionInfo,
  SessionSnapshot,
  Store,
  StoredRun,
  StoredRunEnd,
  StoredRunSummary,
} from "../store.js";
import { loadPg, type PgClient, type PgPool, pgTypes } from "./pg-driver.js";
import { describeUrl, translatePgError } from "./pg-errors.js";
import { migratePg, quoteIdent } from "./pg-migrations.js";
import { PgNotes } from "./pg-notes.js";
import { PgRuns } from "./pg-runs.js";
import { PgSessions } from "./pg-sessions.js";

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

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The `Store` on Postgres, for runs shared by many processes and machines: the same tables as
 * the SQLite store in a schema of their own, every method one transaction, sessions and claims
 * serialized by row locks. Open it with `await PostgresStore.connect({ url })`.
 */
export class PostgresStore implements Store {
  /** The server and database, without the password; every error names it. */
  readonly location: string;
  /** The schema holding the tables. */
  readonly schema: string;
  readonly #pool: PgPool;
  readonly #runs: PgRuns;
  readonly #sessions: PgSessions;
  readonly #notes = new PgNotes();
  #closed: Promise<void> | undefined;

  private constructor(pool: PgPool, location: string, schema: string) {
    this.#pool = pool;
    this.location = location;
    this.schema = schema;
    this.#runs = new PgRuns(location);
    this.#sessions = new PgSessions(location, this.#runs);
  }

  /**
   * Connects, creates the schema or brings it up to date, and returns the store. A bad URL, a
   * server that is not there or refuses the login, is a DatabaseOpenError naming the server.
   */
  static async connect(options: PostgresOptions = {}): Promise<PostgresStore> {
    const url = options.url ?? process.env.GLASSLOOP_POSTGRES_URL;
    if (url === undefined || url === "")
      throw new ConfigError("PostgresStore needs a URL: pass { url } or set GLASSLOOP_POSTGRES_URL");
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
    const store = new PostgresStore(pool, location, schema);
    try {
      const client = await pool.connect();
      try {
        await migratePg(client, schema, location);
      } finally {
        client.release();
      }
    } catch (error) {
      await pool.end().catch(() => {});
      throw translatePgError(error, location);
    }
    return store;
  }

  async createRun(run: NewRun): Promise<void> {
    await this.#tx(async (c) => {
      if (run.session) await this.#sessions.requireLock(c, run.session.sessionId, run.runId);
      await this.#runs.create(c, run);
    });
  }

  async checkpoint(runId: string, checkpoint: RunCheckpoint): Promise<void> {
    // One statement, atomic by itself: no BEGIN and COMMIT round trips.
    await this.#tx((c) => this.#runs.checkpoint(c, runId, checkpoint), "single");
  }

  async finishRun(runId: string, end: StoredRunEnd): Promise<void> {
    await this.#tx(async (c) => {
      const link = sessionLinkOf(await this.#runs.finish(c, runId, end));
      // Only a run that still holds its session saves into it; a discarded one never does.
      if (link) await this.#sessions.save(c, link, runId, end.messages);
    });
  }

  async loadRun(runId: string): Promise<StoredRun> {
    return this.#tx((c) => this.#runs.load(c, runId), "read");
  }

  async claimRun(runId: string, owner: RunOwner, expect?: ClaimExpectation): Promise<StoredRun> {
    return this.#tx(async (c) => {
      const link = sessionLinkOf(await this.#runs.claim(c, runId, owner, expect));
      if (link) await this.#sessions.lock(c, link.sessionId, runId);
      return this.#runs.load(c, runId);
    });
  }

  async discardRun(runId: string): Promise<void> {
    await this.#tx(async (c) => {
      const link = sessionLinkOf(await this.#runs.discard(c, runId));
      if (link) await this.#sessions.unlock(c, link.sessionId, runId);
    });
  }

  async listRuns(
    filter: { status?: StoredRunStatus; sessionId?: string; limit?: number } = {},
  ): Promise<StoredRunSummary[]> {
    return this.#tx((c) => this.#runs.list(c, filter), "read");
  }

  async lockSession(sessionId: string, runId: string): Promise<SessionSnapshot> {
    return this.#tx((c) => this.#sessions.lock(c, sessionId, runId));
  }

  async unlockSession(sessionId: string, runId: string): Promise<void> {
    await this.#tx((c) => this.#sessions.unlock(c, sessionId, runId));
  }

  async listSessions(): Promise<SessionInfo[]> {
    return this.#tx((c) => this.#sessions.list(c), "read");
  }

  async readSession(sessionId: string): Promise<Message[]> {
    return this.#tx((c) => this.#sessions.read(c, sessionId), "read");
  }

  async forkSession(from: string, to: string, options: { messages?: number } = {}): Promise<void> {
    await this.#tx((c) => this.#sessions.fork(c, from, to, options.messages));
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.#tx((c) => this.#sessions.delete(c, sessionId));
  }

  async addNote(note: NewNote): Promise<Note> {
    return this.#tx((c) => this.#notes.add(c, note));
  }

  async searchNotes(scope: string, query: string, k: number): Promise<ScoredNote[]> {
    return this.#tx((c) => this.#notes.search(c, scope, query, k), "read");
  }

  async nearestNotes(
    scope: string,
    vector: Float32Array,
    k: number,
    embeddingModel: string,
  ): Promise<ScoredNote[]> {
    return this.#tx((c) => this.#notes.nearest(c, scope, vector, k, embeddingModel), "read");
  }

  async deleteNote(scope: string, id: number): Promise<void> {
    await this.#tx((c) => this.#notes.delete(c, scope, id));
  }

  /** Closes the pool; the promise settles once every connection is closed. */
  close(): Promise<void> {
    this.#closed ??= this.#pool.end().catch(() => {});
    return this.#closed;
  }

  /**
   * One transaction on one pooled connection. Reads run in a REPEATABLE READ snapshot, so a run
   * and its transcript are read as of one moment; writes in READ COMMITTED with row locks;
   * `single` work is one statement, a transaction by itself.
   */
  async #tx<T>(
    work: (client: PgClient) => Promise<T>,
    kind: "read" | "write" | "single" = "write",
  ): Promise<T> {
    if (this.#closed) throw new ConfigError(`The Postgres store ${this.location} is closed`);
    let client: PgClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw translatePgError(error, this.location);
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
      throw translatePgError(error, this.location);
    } finally {
      // A connection that cannot even roll back is dropped rather than handed to the next caller.
      client.release(broken);
    }
  }
}
