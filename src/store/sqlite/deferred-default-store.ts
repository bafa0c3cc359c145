import type { Message } from "../../core/vocabulary/messages.js";
import type { StoredRunStatus } from "../../core/vocabulary/status.js";
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

const deferred = new Map<string, DeferredStore>();

/**
 * The default store (`defaultStore()`, the SQLite file at `GLASSLOOP_DB` or
 * `.glassloop/glassloop.db`) as an agent without a `store` sees it: its location is known at once,
 * but the SQLite modules and better-sqlite3 load on its first call, so a program that gives its own
 * store, or never persists, never loads them. One per file, like the store behind it.
 */
export function deferredDefaultStore(): Store {
  const location = defaultDatabasePath();
  let store = deferred.get(location);
  if (!store) {
    store = new DeferredStore(location);
    deferred.set(location, store);
  }
  return store;
}

/** Forwards every call to the process's SQLite store for `location`, opened on the first one. */
class DeferredStore implements Store {
  readonly location: string;
  #opening: Promise<Store> | undefined;
  #opened: Store | undefined;

  constructor(location: string) {
    this.location = location;
  }

  #store(): Promise<Store> {
    this.#opening ??= import("./default-store.js").then(({ defaultStore }) => {
      this.#opened = defaultStore(this.location);
      return this.#opened;
    });
    return this.#opening;
  }

  async createRun(run: NewRun): Promise<void> {
    return (await this.#store()).createRun(run);
  }
  async checkpoint(runId: string, checkpoint: RunCheckpoint): Promise<void> {
    return (await this.#store()).checkpoint(runId, checkpoint);
  }
  async finishRun(runId: string, end: StoredRunEnd): Promise<void> {
    return (await this.#store()).finishRun(runId, end);
  }
  async loadRun(runId: string): Promise<StoredRun> {
    return (await this.#store()).loadRun(runId);
  }
  async claimRun(runId: string, owner: RunOwner, expect?: ClaimExpectation): Promise<StoredRun> {
    return (await this.#store()).claimRun(runId, owner, expect);
  }
  async discardRun(runId: string): Promise<void> {
    return (await this.#store()).discardRun(runId);
  }
  async renewLeases(runIds: readonly string[], owner: RunOwner, leaseUntil: number): Promise<string[]> {
    const store = await this.#store();
    return store.renewLeases ? store.renewLeases(runIds, owner, leaseUntil) : [];
  }
  async releaseRun(runId: string, owner: RunOwner): Promise<boolean> {
    const store = await this.#store();
    return store.releaseRun ? store.releaseRun(runId, owner) : false;
  }
  async listRuns(filter?: {
    status?: StoredRunStatus;
    sessionId?: string;
    limit?: number;
  }): Promise<StoredRunSummary[]> {
    return (await this.#store()).listRuns(filter);
  }
  async lockSession(sessionId: string, runId: string): Promise<SessionSnapshot> {
    return (await this.#store()).lockSession(sessionId, runId);
  }
  async unlockSession(sessionId: string, runId: string): Promise<void> {
    return (await this.#store()).unlockSession(sessionId, runId);
  }
  async listSessions(): Promise<SessionInfo[]> {
    return (await this.#store()).listSessions();
  }
  async readSession(sessionId: string): Promise<Message[]> {
    return (await this.#store()).readSession(sessionId);
  }
  async forkSession(from: string, to: string, options?: { messages?: number }): Promise<void> {
    return (await this.#store()).forkSession(from, to, options);
  }
  async deleteSession(sessionId: string): Promise<void> {
    return (await this.#store()).deleteSession(sessionId);
  }
  async addNote(note: NewNote): Promise<Note> {
    return (await this.#store()).addNote(note);
  }
  async searchNotes(scope: string, query: string, k: number): Promise<ScoredNote[]> {
    return (await this.#store()).searchNotes(scope, query, k);
  }
  async nearestNotes(
    scope: string,
    vector: Float32Array,
    k: number,
    embeddingModel: string,
  ): Promise<ScoredNote[]> {
    return (await this.#store()).nearestNotes(scope, vector, k, embeddingModel);
  }
  async deleteNote(scope: string, id: number): Promise<void> {
    return (await this.#store()).deleteNote(scope, id);
  }

  /** Closes the SQLite store if it was opened; a store never opened has nothing to close. */
  close(): void {
    this.#opened?.close();
  }
}
