import { ConfigError } from "../../core/errors.js";
import type { Message } from "../../core/vocabulary/messages.js";
import type { StoredRunStatus } from "../../core/vocabulary/status.js";
import { sessionLinkOf } from "../run-row.js";
import type {
  ClaimExpectation,
  EndedRun,
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
import type { PgClient, PgPool } from "./pg-driver.js";
import { insertEndedRun } from "./pg-ended-run.js";
import { PgNotes } from "./pg-notes.js";
import { migrateTarget, openPgPool, type PostgresOptions, pgTransaction } from "./pg-pool.js";
import { PgRuns } from "./pg-runs.js";
import { PgSessions } from "./pg-sessions.js";

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
    const target = openPgPool(options, "PostgresStore");
    await migrateTarget(target);
    return new PostgresStore(target.pool, target.location, target.schema);
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

  async recordEndedRun(run: EndedRun): Promise<"created" | "exists"> {
    const session = run.session;
    // Without a session, one statement: no BEGIN and COMMIT round trips.
    if (!session) return (await this.#tx((c) => insertEndedRun(c, run), "single")) ? "created" : "exists";
    return this.#tx(async (c) => {
      if (!(await insertEndedRun(c, run))) return "exists";
      // As createRun and finishRun: the run must hold its session, which it saves and frees.
      await this.#sessions.requireLock(c, session.sessionId, run.runId);
      await this.#sessions.save(c, session, run.runId, run.messages);
      return "created";
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

  async renewLeases(runIds: readonly string[], owner: RunOwner, leaseUntil: number): Promise<string[]> {
    if (runIds.length === 0) return [];
    return this.#tx((c) => this.#runs.renewLeases(c, runIds, owner, leaseUntil), "single");
  }

  async releaseRun(runId: string, owner: RunOwner): Promise<boolean> {
    return this.#tx((c) => this.#runs.release(c, runId, owner), "single");
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

  /** One transaction on one pooled connection (see pgTransaction). */
  async #tx<T>(
    work: (client: PgClient) => Promise<T>,
    kind: "read" | "write" | "single" = "write",
  ): Promise<T> {
    if (this.#closed) throw new ConfigError(`The Postgres store ${this.location} is closed`);
    return pgTransaction({ pool: this.#pool, location: this.location }, work, kind);
  }
}
