/**
 * What a store keeps of a run: its owner and lease, the calls of the turn in progress, the
 * progress a resume needs, the checkpoints and the end written to it, and the run as read back.
 * Part of the persistence contract (store.ts re-exports every type here; import from there).
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
