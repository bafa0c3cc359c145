/**
 * `glassloop/store`: the embedded SQLite store (sessions, checkpoints, notes), the process's
 * default one, a redacting wrapper for any store, the records a `Store` reads and writes, and every
 * store error class. The `Store` interface itself is at the root; the Postgres store is
 * `glassloop/postgres`.
 */

export type { StoredRunStatus } from "../core/vocabulary/status.js";
export {
  DatabaseCorruptError,
  DatabaseLockedError,
  DatabaseOpenError,
  RunBusyError,
  RunFencedError,
  RunNotResumableError,
  SchemaTooNewError,
  SessionBusyError,
  StoreError,
  UnknownRunError,
  UnknownSessionError,
} from "../store/errors.js";
export { redactingStore, type StoreScrubber } from "../store/redacting-store.js";
export { defaultDatabasePath } from "../store/sqlite/default-path.js";
export { defaultStore } from "../store/sqlite/default-store.js";
export type { SqliteOptions } from "../store/sqlite/sqlite-open.js";
export { SqliteStore } from "../store/sqlite/sqlite-store.js";
export type {
  ClaimExpectation,
  EndedRun,
  NewNote,
  NewRun,
  Note,
  PendingCall,
  ProgressMode,
  RunCheckpoint,
  RunOwner,
  RunProgress,
  RunSessionLink,
  RunTools,
  ScoredNote,
  SessionInfo,
  SessionSnapshot,
  Store,
  StoredRun,
  StoredRunEnd,
  StoredRunSummary,
} from "../store/store.js";
