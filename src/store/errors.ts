import { GlassloopError } from "../core/errors.js";
import type { StoreErrorCode } from "../core/vocabulary/error-codes.js";

/** A problem with the database file itself; `file` names it so the user knows where to look. */
export class StoreError extends GlassloopError {
  /** The database the error is about (a path, `:memory:`, or a connection description). */
  readonly file: string;
  constructor(code: StoreErrorCode, file: string, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.file = file;
  }
}

/** Another process holds a write lock on the database longer than the busy timeout allows. */
export class DatabaseLockedError extends StoreError {
  constructor(file: string, cause?: unknown) {
    super(
      "db_locked",
      file,
      `The database ${file} is locked by another process (it kept a write lock past the busy timeout). ` +
        "Close the other program or wait for it, or raise the store's busyTimeoutMs.",
      { cause },
    );
  }
}

/** The file is not a SQLite database or is damaged; nothing was written to it. */
export class DatabaseCorruptError extends StoreError {
  constructor(file: string, cause?: unknown) {
    const detail = cause instanceof Error ? ` (${cause.message})` : "";
    super(
      "db_corrupt",
      file,
      `The database ${file} is not a glassloop database or is corrupt${detail}. ` +
        "Move it aside (or point GLASSLOOP_DB elsewhere) and glassloop will create a fresh one.",
      { cause },
    );
  }
}

/** The file could not be opened or created (permissions, a missing directory, a full disk). */
export class DatabaseOpenError extends StoreError {
  constructor(file: string, cause?: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super("db_open", file, `Cannot open the database ${file}: ${detail}`, { cause });
  }
}

/** The database was written by a newer glassloop; this version refuses to touch it. */
export class SchemaTooNewError extends StoreError {
  readonly found: number;
  readonly supported: number;
  constructor(file: string, found: number, supported: number) {
    super(
      "schema_too_new",
      file,
      `The database ${file} has schema version ${found}, newer than this glassloop supports (${supported}). ` +
        "Upgrade glassloop, or use another database file.",
    );
    this.found = found;
    this.supported = supported;
  }
}

/** No run with this id exists in the store. */
export class UnknownRunError extends StoreError {
  readonly runId: string;
  constructor(file: string, runId: string) {
    super("unknown_run", file, `No run ${JSON.stringify(runId)} in ${file}`);
    this.runId = runId;
  }
}

/** The run cannot be resumed: it already ended, or it is still running in a live process. */
export class RunNotResumableError extends StoreError {
  readonly runId: string;
  readonly status: string;
  constructor(file: string, runId: string, status: string, reason: string) {
    super("run_not_resumable", file, `Run ${runId} in ${file} cannot be resumed: ${reason}`);
    this.runId = runId;
    this.status = status;
  }
}

/**
 * Someone else drives the run right now: its owner is alive, or another process claimed it between
 * this resume reading it and claiming it. Nothing of it ran here.
 */
export class RunBusyError extends RunNotResumableError {}

/** Another run holds the session; `holderRunId` says which and `holderState` how. */
export class SessionBusyError extends StoreError {
  readonly sessionId: string;
  readonly holderRunId: string;
  /**
   * `live`: running in a live process; `interrupted`: its process died (resume or discard it);
   * `awaiting_approval`: paused for a human decision (resume it with the decision, or discard it).
   */
  readonly holderState: "live" | "interrupted" | "awaiting_approval";
  constructor(
    file: string,
    sessionId: string,
    holderRunId: string,
    holderState: "live" | "interrupted" | "awaiting_approval",
    pid: number,
  ) {
    const id = JSON.stringify(holderRunId);
    const what = JSON.stringify(sessionId);
    const ways = `Resume it with agent.resume(${id}) or discard it with store.discardRun(${id}).`;
    super(
      "session_busy",
      file,
      holderState === "live"
        ? `Session ${what} in ${file} is in use by run ${holderRunId} (process ${pid}); ` +
            "two runs on one session would interleave. Wait for it to finish."
        : holderState === "interrupted"
          ? `Session ${what} in ${file} has an interrupted run ${holderRunId} (its process ${pid} is gone). ${ways}`
          : `Session ${what} in ${file} has run ${holderRunId} paused for approval. ${ways}`,
    );
    this.sessionId = sessionId;
    this.holderRunId = holderRunId;
    this.holderState = holderState;
  }
}

/** A session operation that needs an existing session (read, fork) found none. */
export class UnknownSessionError extends StoreError {
  readonly sessionId: string;
  constructor(file: string, sessionId: string) {
    super("unknown_session", file, `No session ${JSON.stringify(sessionId)} in ${file}`);
    this.sessionId = sessionId;
  }
}

/**
 * A write from a process that no longer holds the run: another process claimed it since (its
 * lease ran out, or this one handed it over), so the write was refused and nothing was stored.
 * The writer must stop driving the run; the claimer continues it from its last checkpoint.
 */
export class RunFencedError extends StoreError {
  readonly runId: string;
  constructor(file: string, runId: string) {
    super(
      "run_fenced",
      file,
      `Run ${runId} in ${file} was claimed by another process; this process's write was refused`,
    );
    this.runId = runId;
  }
}
