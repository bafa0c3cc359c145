/**
 * The serve log's contract: who owns which chat and run, each run's stream of items, and the
 * approvals a run waits for. The runs themselves (transcripts, checkpoints, sessions) live in the
 * glassloop store; this holds what the HTTP side adds to them.
 */
import type { RunUsage } from "../core/vocabulary/usage.js";
import type { AttachmentNote } from "./attachments.js";
import type { ApprovalItem, LogEntry } from "./log-items.js";

/** Where a run stands, as the server reports it. */
export type ServeRunStatus =
  | "running"
  | "awaiting_approval"
  | "ok"
  | "failed"
  | "aborted"
  | "budget_exceeded"
  | "interrupted";

/** A chat: one principal's conversation with one agent (a glassloop session). */
export interface ChatRecord {
  principal: string;
  chatId: string;
  agent: string;
  /** The first user message, shortened: for a list of chats. */
  title: string;
  /** The run that holds the chat now (running or awaiting approval). */
  activeRun?: string;
  createdAt: number;
  updatedAt: number;
}

/** A run started over HTTP. */
export interface RunRecord {
  runId: string;
  principal: string;
  chatId: string;
  agent: string;
  model: string;
  input: string;
  /** The caller's own id for the input message (A2A's messageId), when it gave one. */
  messageId?: string;
  status: ServeRunStatus;
  usage?: RunUsage;
  /** The store session the run used (absent on runs recorded before it was kept: the chat's first). */
  session?: string;
  /** How many messages that session held when the run began: where regenerating the turn cuts it. */
  sessionStart?: number;
  /** The run this one made again (`regenerate-message`): the chat shows this one in its place. */
  replaces?: string;
  /** The files sent with the input: type, name, URL (inline bytes live in the store only). */
  attachments?: AttachmentNote[];
  /** The sequence number of the last stored item (-1: none yet). */
  lastSeq: number;
  /** The server process driving the run while it is `running` (see `driverId`). */
  driver?: string;
  /** Until when (ms since the epoch) that process's claim holds unless it renews it. */
  leaseUntil?: number;
  /** A client asked to stop the run; the process driving it stops it. */
  cancelRequested?: boolean;
  createdAt: number;
  updatedAt: number;
}

/** A run as `createRun` takes it: it starts `running`, driven by `driver` until `leaseUntil`. */
export type NewServeRun = Omit<
  RunRecord,
  "lastSeq" | "createdAt" | "updatedAt" | "status" | "cancelRequested"
>;

/** What one server process tells the others through the log (Postgres: LISTEN/NOTIFY). */
export type ServeNotice =
  /** Items were appended to the run, or its status changed. */
  | { kind: "items"; runId: string }
  /** A client asked to stop the run. */
  | { kind: "cancel"; runId: string }
  /** The process driving the run handed it over (it is stopping): another may claim it now. */
  | { kind: "released"; runId: string };

/** An approval the server handed out, bound to one call of one run. */
export interface ApprovalRecord extends ApprovalItem {
  runId: string;
  /** The validated arguments as JSON text, as glassloop stored them. */
  validated: string;
  decided?: { approved: boolean; reason?: string; at: number };
}

/** Which of one principal's runs of one agent to list, and where a page starts. */
export interface RunQuery {
  principal: string;
  agent: string;
  chatId?: string;
  /** Only runs in one of these statuses (absent: any; empty: none). */
  statuses?: readonly ServeRunStatus[];
  /** Only runs updated at or after this time (ms since the epoch). */
  updatedSince?: number;
  /** Only runs after this one in the order (the last run of the previous page). */
  after?: { updatedAt: number; runId: string };
  limit: number;
}

/**
 * What the handler stores besides the glassloop store (`SqliteServeLog`, `PostgresServeLog`).
 * Several server processes may share one log: each run names the process driving it and holds a
 * lease that process renews, so another takes the run over only once the lease ran out.
 */
export interface ServeLog {
  getChat(principal: string, chatId: string): Promise<ChatRecord | undefined>;
  /** Creates the chat if new; the existing one (with its agent) otherwise. */
  ensureChat(chat: Omit<ChatRecord, "createdAt" | "updatedAt" | "activeRun">): Promise<ChatRecord>;
  listChats(principal: string, limit: number): Promise<ChatRecord[]>;
  deleteChat(principal: string, chatId: string): Promise<void>;
  /**
   * Makes `runId` the chat's active run, only if it has none (or `expect` is the active one):
   * false when another run holds it. Atomic, so two requests at once cannot both start a run.
   */
  claimChat(principal: string, chatId: string, runId: string, expect?: string): Promise<boolean>;
  /** Frees the chat if `runId` holds it (and, with `driver`, only while `driver` drives the run). */
  releaseChat(principal: string, chatId: string, runId: string, driver?: string): Promise<void>;

  createRun(run: NewServeRun): Promise<void>;
  getRun(runId: string): Promise<RunRecord | undefined>;
  listChatRuns(principal: string, chatId: string): Promise<RunRecord[]>;
  /**
   * A page of a principal's runs of an agent, most recently updated first (ties: run id,
   * descending), and how many match the query without its page bounds (`after`, `limit`).
   */
  listRuns(query: RunQuery): Promise<{ runs: RunRecord[]; total: number }>;
  /** Runs whose status says a process is driving them: after a restart, none is. */
  listRunning(): Promise<RunRecord[]>;
  /** Sets a run's status; with `driver`, only while `driver` drives it (a fenced write is dropped). */
  setRunStatus(runId: string, status: ServeRunStatus, usage?: RunUsage, driver?: string): Promise<void>;
  countActiveRuns(principal: string): Promise<number>;
  /** Marks a run whose approvals were just decided as running again, driven by `driver` until `leaseUntil`. */
  driveRun(runId: string, driver: string, leaseUntil: number): Promise<void>;
  /**
   * Takes a running run over from `expectDriver` (whose process is gone): false, and nothing
   * written, when the run moved on or another process took it first.
   */
  takeOverRun(
    runId: string,
    driver: string,
    leaseUntil: number,
    expectDriver: string | undefined,
  ): Promise<boolean>;
  /**
   * Extends the lease of the running runs of `driver`: those of `driven` (the runs the caller
   * drives now), or every one when `driven` is absent. Returns the ids of those a client asked to
   * stop, and of `driven` those `driver` no longer drives: another process took them over, so the
   * caller must stop driving them. A run that names `driver` but is not in `driven` (its drive
   * stopped) is not renewed: its lease runs out and any process may take it over.
   */
  renewLeases(
    driver: string,
    leaseUntil: number,
    driven?: readonly string[],
  ): Promise<{ cancelled: string[]; lost: string[] }>;
  /**
   * Hands a running run over: it stays `running`, with no driver and no lease, so any process
   * may take it over at once (announced: a `released` notice). False when `driver` no longer
   * drove it.
   */
  releaseRun(runId: string, driver: string): Promise<boolean>;
  /** Asks the process driving `runId` to stop it (it reads this when it renews its leases, or at once on a notice). */
  requestCancel(runId: string): Promise<void>;
  /**
   * Calls `listener` when any process appends to a run, changes its status or asks to cancel it;
   * returns the way to stop listening. Absent: other processes find out by polling the log.
   */
  subscribe?(listener: (notice: ServeNotice) => void): Promise<() => Promise<void>>;

  /**
   * Appends entries (consecutive sequence numbers, in order) in one transaction. With `driver`,
   * only while `driver` drives the run: otherwise nothing is written and it throws LeaseLostError.
   */
  append(runId: string, entries: readonly LogEntry[], driver?: string): Promise<void>;
  /** Entries after `afterSeq`, in order, at most `limit`. */
  read(runId: string, afterSeq: number, limit: number): Promise<LogEntry[]>;

  /** Records the approvals a run waits for; with `driver`, as `append` (LeaseLostError when fenced). */
  addApprovals(
    runId: string,
    approvals: readonly (ApprovalItem & { validated: string })[],
    driver?: string,
  ): Promise<void>;
  getApproval(approvalId: string): Promise<ApprovalRecord | undefined>;
  /** The run's approvals not decided yet. */
  openApprovals(runId: string): Promise<ApprovalRecord[]>;
  /**
   * Records decisions, all or none: false (nothing written) if any of them was decided already.
   */
  decide(decisions: readonly { approvalId: string; approved: boolean; reason?: string }[]): Promise<boolean>;

  /** Closes the log (a Postgres log's promise settles once its connections are closed). */
  close(): void | Promise<void>;
}
