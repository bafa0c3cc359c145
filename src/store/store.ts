/**
 * The persistence contract: runs (checkpoints for crash-resume), sessions (conversations that
 * last) and notes (long-term recall). Every method is async and every value is plain JSON (plus
 * float32 vectors), so a server database can implement it as well as the embedded SQLite one.
 */

import type { FinishReason, Message, ToolCall } from "../core/vocabulary/messages.js";
import type { ToolOutcome } from "../core/vocabulary/outcome.js";
import type { AskedQuestion } from "../core/vocabulary/questions.js";
import type { StoredRunStatus } from "../core/vocabulary/status.js";
import type { RunUsage } from "../core/vocabulary/usage.js";

/** The process that drives a run, so a crashed one can be told from a live one. */
export interface RunOwner {
  pid: number;
  host: string;
  /**
   * Until when (ms since the epoch) the owner's claim holds unless it renews it (`renewLeases`):
   * once it has passed, the run counts as abandoned on any host and another process may claim it.
   * Absent: no lease; the run counts as driven while its process lives (on another host, for 15
   * minutes after its last write).
   */
  leaseUntil?: number;
}

/**
 * One call of the turn in progress. `queued`: not started; `started`: it was running when the
 * last checkpoint was written (a crash leaves it unknown whether it finished); `done`: its
 * result is known; `awaiting_approval`: paused for a human decision; `awaiting_input`: it asked the
 * person a question and the run paused for the answer (the call runs again on resume).
 */
export interface PendingCall {
  call: ToolCall;
  state: "queued" | "started" | "done" | "awaiting_approval" | "awaiting_input";
  /** Its result once known; the store keeps `status`, `content`, `images`, `files` and `value`, never `errorDetail`. */
  outcome?: ToolOutcome;
  /**
   * For `awaiting_approval`: the arguments as validated (JSON text), the ones the person decides
   * on; a decision applies only if the call still validates to exactly these.
   */
  validated?: string;
  /**
   * For `awaiting_input`: the questions the call asked, in order; the last waits for its answer,
   * the earlier ones were answered (a resumed call asked again gets those answers from here).
   */
  questions?: AskedQuestion[];
}

/** Loop state beyond the transcript that a resumed run needs to continue where it stopped. */
export interface RunProgress {
  /** Calls of the last assistant message whose results are not in the transcript yet. */
  pending: PendingCall[];
  /** The repeated-call guard's memory of the previous turn. */
  guard?: unknown;
  /**
   * The finish reason of the last assistant message's model response, so a resumed run decides a
   * stored answer (a cut-off one included) as the live loop would have.
   */
  finishReason?: FinishReason;
}

/**
 * The tools a run was started with, stored with it so a resume offers exactly those: the names
 * the model was offered, and `setup`, how its creator built them (the CLI's tool groups and their
 * options; plain JSON, never a secret).
 */
export interface RunTools {
  names: string[];
  setup?: unknown;
}

/**
 * How a checkpoint's `progress` is applied. `replace` (the default): it is the whole progress.
 * `calls`: `progress.pending` holds only the calls that changed since the last checkpoint, each
 * upserted by call id (a new id goes after the stored ones), and everything else stays as stored.
 * `calls-and-rest`: the same, and the other fields of `progress` replace the stored ones. This
 * keeps a turn of N calls at O(N) bytes written, not O(N²).
 */
export type ProgressMode = "replace" | "calls" | "calls-and-rest";

/** What a store needs to create a run record. */
export interface NewRun {
  runId: string;
  agent: string;
  model: string;
  input: string;
  owner: RunOwner;
  messages: readonly Message[];
  usage: RunUsage;
  progress: RunProgress;
  /** Set for runs on a session; the session must have been locked for this run. */
  session?: RunSessionLink;
  /** The tools the run was started with. */
  tools?: RunTools;
}

/** How a run's transcript maps onto its session's messages. */
export interface RunSessionLink {
  sessionId: string;
  /** Index in the run's messages where the session's messages begin (after the system prompt). */
  offset: number;
  /** How many session messages the run loaded; the run appends after them. */
  base: number;
  /** The session version the run loaded; saving fails if it changed meanwhile. */
  version: number;
}

/**
 * A checkpoint: the transcript (the store appends `messages.slice(persisted)`, since transcripts
 * only grow), usage, progress and status, all written in one transaction. `usage.steps` may hold
 * only the steps that changed since the last checkpoint: steps are stored by their number.
 */
export interface RunCheckpoint {
  /** Messages the store already holds for this run. */
  persisted: number;
  messages: readonly Message[];
  usage: RunUsage;
  progress: RunProgress;
  /** How `progress` applies to what is stored (default `replace`). */
  progressMode?: ProgressMode;
  status: "running" | "awaiting_approval";
  /** The writer's fencing token (`StoredRun.fence` as its claim returned it): refused once another claim moved it on. */
  fence?: number;
}

/** The end of a run: the final checkpoint plus its outcome; saves the session in the same transaction. */
export interface StoredRunEnd {
  persisted: number;
  messages: readonly Message[];
  usage: RunUsage;
  status: Exclude<StoredRunStatus, "running" | "awaiting_approval">;
  output?: unknown;
  error?: { code: string; message: string };
  /** The writer's fencing token, as for a checkpoint. */
  fence?: number;
}

/**
 * A run recorded only once it ended (a scale-out worker's run, whose steps DBOS recorded): what
 * `createRun` and then `finishRun` would write, in one write. The record holds the whole
 * transcript; with `session`, the session must be locked by this run, and it is saved from
 * `session.offset + session.base` on and unlocked, as `finishRun` does.
 */
export interface EndedRun {
  runId: string;
  agent: string;
  model: string;
  input: string;
  owner: RunOwner;
  messages: readonly Message[];
  usage: RunUsage;
  status: Exclude<StoredRunStatus, "running" | "awaiting_approval">;
  output?: unknown;
  error?: { code: string; message: string };
  session?: RunSessionLink;
  tools?: RunTools;
}

/** The state a claimer read the run in; the claim fails if the run moved on since. */
export interface ClaimExpectation {
  status: StoredRunStatus;
  updatedAt: number;
}

/** A run as stored. */
export interface StoredRun {
  runId: string;
  agent: string;
  model: string;
  input: string;
  status: StoredRunStatus;
  owner: RunOwner;
  messages: Message[];
  usage: RunUsage;
  progress: RunProgress;
  session?: RunSessionLink;
  /** The tools the run was started with; absent for runs stored by a glassloop that did not record them. */
  tools?: RunTools;
  output?: unknown;
  error?: { code: string; message: string };
  /**
   * The fencing token: 0 when created, one more at every claim. A writer passes the token it got
   * with each checkpoint and end, and the store refuses the write (RunFencedError) once another
   * claim took the run; absent from stores without fencing.
   */
  fence?: number;
  createdAt: number;
  updatedAt: number;
}

/** One line of `listRuns`. */
export interface StoredRunSummary {
  runId: string;
  agent: string;
  status: StoredRunStatus;
  sessionId?: string;
  input: string;
  createdAt: number;
  updatedAt: number;
}

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
