import type Database from "better-sqlite3";
import type { Message } from "../../core/vocabulary/messages.js";
import type { StoredRunStatus } from "../../core/vocabulary/status.js";
import { StoreError } from "../errors.js";
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
import { defaultDatabasePath } from "./default-path.js";
import { SqliteNotes } from "./sqlite-notes.js";
import { openDatabase, type SqliteOptions, translateError } from "./sqlite-open.js";
import { SqliteRuns } from "./sqlite-runs.js";
import { SqliteSessions } from "./sqlite-sessions.js";

/**
 * The embedded store: one SQLite file (WAL mode, versioned migrations) holding runs, sessions
 * and notes. Opening it creates the file and its directory if needed.
 */
export class SqliteStore implements Store {
  readonly location: string;
  readonly #db: Database.Database;
  readonly #runs: SqliteRuns;
  readonly #sessions: SqliteSessions;
  readonly #notes: SqliteNotes;
  // One transaction wrapper for every call: better-sqlite3 passes the work through as an argument.
  readonly #tx: Database.Transaction<(work: () => unknown) => unknown>;

  constructor(options: SqliteOptions = {}) {
    this.location = defaultDatabasePath(options.path);
    this.#db = openDatabase(this.location, options);
    try {
      this.#runs = new SqliteRuns(this.#db, this.location);
      this.#sessions = new SqliteSessions(this.#db, this.location, this.#runs);
      this.#notes = new SqliteNotes(this.#db, this.location);
      this.#tx = this.#db.transaction((work: () => unknown) => work());
    } catch (error) {
      this.#db.close();
      throw translateError(error, this.location);
    }
  }

  async createRun(run: NewRun): Promise<void> {
    this.#write(() => {
      if (run.session) this.#requireLock(run.session.sessionId, run.runId);
      this.#runs.create(run);
    });
  }

  async checkpoint(runId: string, checkpoint: RunCheckpoint): Promise<void> {
    this.#write(() => this.#runs.checkpoint(runId, checkpoint));
  }

  async finishRun(runId: string, end: StoredRunEnd): Promise<void> {
    this.#write(() => {
      const row = this.#runs.finish(runId, end);
      const link = sessionLinkOf(row);
      // Only a successful-or-stopped run that still holds its session saves into it; a discarded one never does.
      if (link) this.#sessions.save(link, runId, end.messages);
    });
  }

  async loadRun(runId: string): Promise<StoredRun> {
    return this.#read(() => this.#runs.load(runId));
  }

  async claimRun(runId: string, owner: RunOwner, expect?: ClaimExpectation): Promise<StoredRun> {
    return this.#write(() => {
      const row = this.#runs.claim(runId, owner, expect);
      const link = sessionLinkOf(row);
      if (link) this.#sessions.lock(link.sessionId, runId);
      return this.#runs.load(runId);
    });
  }

  async renewLeases(runIds: readonly string[], owner: RunOwner, leaseUntil: number): Promise<string[]> {
    if (runIds.length === 0) return [];
    return this.#write(() => this.#runs.renewLeases(runIds, owner, leaseUntil));
  }

  async releaseRun(runId: string, owner: RunOwner): Promise<boolean> {
    return this.#write(() => this.#runs.release(runId, owner));
  }

  async discardRun(runId: string): Promise<void> {
    this.#write(() => {
      const link = sessionLinkOf(this.#runs.discard(runId));
      if (link) this.#sessions.unlock(link.sessionId, runId);
    });
  }

  async listRuns(
    filter: { status?: StoredRunStatus; sessionId?: string; limit?: number } = {},
  ): Promise<StoredRunSummary[]> {
    return this.#read(() => this.#runs.list(filter));
  }

  async lockSession(sessionId: string, runId: string): Promise<SessionSnapshot> {
    return this.#write(() => this.#sessions.lock(sessionId, runId));
  }

  async unlockSession(sessionId: string, runId: string): Promise<void> {
    this.#write(() => this.#sessions.unlock(sessionId, runId));
  }

  async listSessions(): Promise<SessionInfo[]> {
    return this.#read(() => this.#sessions.list());
  }

  async readSession(sessionId: string): Promise<Message[]> {
    return this.#read(() => this.#sessions.read(sessionId));
  }

  async forkSession(from: string, to: string, options: { messages?: number } = {}): Promise<void> {
    this.#write(() => this.#sessions.fork(from, to, options.messages));
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.#write(() => this.#sessions.delete(sessionId));
  }

  async addNote(note: NewNote): Promise<Note> {
    return this.#write(() => this.#notes.add(note));
  }

  async searchNotes(scope: string, query: string, k: number): Promise<ScoredNote[]> {
    return this.#read(() => this.#notes.search(scope, query, k));
  }

  async nearestNotes(
    scope: string,
    vector: Float32Array,
    k: number,
    embeddingModel: string,
  ): Promise<ScoredNote[]> {
    return this.#read(() => this.#notes.nearest(scope, vector, k, embeddingModel));
  }

  async deleteNote(scope: string, id: number): Promise<void> {
    this.#write(() => this.#notes.delete(scope, id));
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }

  #requireLock(sessionId: string, runId: string): void {
    const lock = this.#db.prepare("SELECT lock_run_id FROM sessions WHERE id = ?").pluck().get(sessionId);
    if (lock !== runId) {
      throw new StoreError(
        "session_not_locked",
        this.location,
        `Run ${runId} must lock session ${JSON.stringify(sessionId)} in ${this.location} before it starts`,
      );
    }
  }

  /** A write transaction, taken with the write lock up front (BEGIN IMMEDIATE) so it never upgrades mid-way. */
  #write<T>(fn: () => T): T {
    try {
      return this.#tx.immediate(fn) as T;
    } catch (error) {
      throw translateError(error, this.location);
    }
  }

  #read<T>(fn: () => T): T {
    try {
      return this.#tx.deferred(fn) as T;
    } catch (error) {
      throw translateError(error, this.location);
    }
  }
}
