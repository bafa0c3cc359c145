/**
 * The persistence contract: runs (checkpoints for crash-resume), sessions (conversations that
 * last) and notes (long-term recall). Every method is async and every value is plain JSON (plus
 * float32 vectors), so a server database can implement it as well as the embedded SQLite one.
 */

import type { Message } from "../core/vocabulary/messages.js";
import type { StoredRunStatus } from "../core/vocabulary/status.js";
import type {
  ClaimExpectation,
  EndedRun,
  NewRun,
  RunCheckpoint,
  RunOwner,
  StoredRun,
  StoredRunEnd,
  StoredRunSummary,
} from "./run-records.js";

// What a store keeps of a run is declared in run-records.ts; this file is still the one import point.
export type {
  ClaimExpectation,
  EndedRun,
  NewRun,
  PendingCall,
  ProgressMode,
  RunCheckpoint,
  RunOwner,
  RunProgress,
  RunSessionLink,
  RunTools,
  StoredRun,
  StoredRunEnd,
  StoredRunSummary,
} from "./run-records.js";

/** One line of `listSessions`. */
export interface SessionInfo {
  sessionId: string;
  messageCount: number;
  /** The run holding the session right now, if any. */
  lockedBy?: string;
  createdAt: number;
  updatedAt: number;
}

/** A session's messages and version, as a run loads them. */
export interface SessionSnapshot {
  sessionId: string;
  messages: Message[];
  version: number;
}

/** A note to remember. */
export interface NewNote {
  /** Who or what the note belongs to, e.g. `user:alice`; searches never cross scopes. */
  scope: string;
  text: string;
  metadata?: Record<string, unknown>;
  embedding?: Float32Array;
  /** The model that made `embedding`; vectors of different models are never compared. */
  embeddingModel?: string;
}

/** A remembered note. */
export interface Note {
  id: number;
  scope: string;
  text: string;
  metadata: Record<string, unknown>;
  createdAt: number;
}

/** A note found by a search; a higher `score` is a better match. */
export interface ScoredNote extends Note {
  score: number;
}

/** The persistence behind sessions, durable runs and recall. */
export interface Store {
  /** Where the data lives (a file path for SQLite); every error names it. */
  readonly location: string;

  /** Records a new run; with `session`, the session must be locked by this run. */
  createRun(run: NewRun): Promise<void>;
  /** Writes a checkpoint atomically. */
  checkpoint(runId: string, checkpoint: RunCheckpoint): Promise<void>;
  /** Writes the end of a run; for a session run, saves the session and releases its lock, atomically. */
  finishRun(runId: string, end: StoredRunEnd): Promise<void>;
  /**
   * Records a run that already ended, at once (see EndedRun): `"created"`, or `"exists"` when a
   * record of the run is there already, in which case nothing is written (the caller decides:
   * `finishRun` ends a record left open). Absent: the store has no such write; use `createRun`
   * and `finishRun`.
   */
  recordEndedRun?(run: EndedRun): Promise<"created" | "exists">;
  /** A run with its transcript; throws UnknownRunError. */
  loadRun(runId: string): Promise<StoredRun>;
  /**
   * Makes `owner` the run's driver so it can be resumed, in one compare-and-set transaction that
   * moves the run to `running`: of two claims at once exactly one wins. Throws RunNotResumableError
   * if the run ended, and RunBusyError if its owner is still alive or (with `expect`) the run is no
   * longer as the caller read it. With a session, re-takes the session's lock.
   */
  claimRun(runId: string, owner: RunOwner, expect?: ClaimExpectation): Promise<StoredRun>;
  /** Ends an interrupted run without resuming it and frees its session. */
  discardRun(runId: string): Promise<void>;
  /**
   * Extends to `leaseUntil` the lease of each of `runIds` that is still running and owned by
   * `owner` (pid and host); returns the ids it extended. A run missing from the answer was taken
   * by another process: its driver must stop. Absent: the store keeps no leases.
   */
  renewLeases?(runIds: readonly string[], owner: RunOwner, leaseUntil: number): Promise<string[]>;
  /**
   * Gives up `owner`'s claim on a running run so another process may claim it at once: the run
   * stays `running` at its last checkpoint, its lease ends now, and its fencing token moves on,
   * so the releasing process's later writes are refused. False when `owner` no longer held it.
   */
  releaseRun?(runId: string, owner: RunOwner): Promise<boolean>;
  listRuns(filter?: {
    status?: StoredRunStatus;
    sessionId?: string;
    limit?: number;
  }): Promise<StoredRunSummary[]>;

  /** Locks a session (creating it if new) for `runId` and returns its messages; SessionBusyError if held. */
  lockSession(sessionId: string, runId: string): Promise<SessionSnapshot>;
  /** Releases a lock taken by `runId` without saving (the run never started). */
  unlockSession(sessionId: string, runId: string): Promise<void>;
  listSessions(): Promise<SessionInfo[]>;
  /** A session's messages; throws UnknownSessionError. */
  readSession(sessionId: string): Promise<Message[]>;
  /** Copies a session (its first `messages` messages, default all) to a new id. */
  forkSession(from: string, to: string, options?: { messages?: number }): Promise<void>;
  /** Deletes a session and its messages; refuses while a live run holds it. */
  deleteSession(sessionId: string): Promise<void>;

  addNote(note: NewNote): Promise<Note>;
  /** Full-text search within a scope, best first. */
  searchNotes(scope: string, query: string, k: number): Promise<ScoredNote[]>;
  /** Nearest notes by cosine similarity to `vector`, among notes embedded by `embeddingModel`. */
  nearestNotes(scope: string, vector: Float32Array, k: number, embeddingModel: string): Promise<ScoredNote[]>;
  deleteNote(scope: string, id: number): Promise<void>;

  close(): void;
}
