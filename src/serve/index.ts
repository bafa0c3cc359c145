/**
 * `glassloop/serve`: glassloop agents behind HTTP. `createHandler` is a Web-standard
 * `Request → Response` handler speaking the AI SDK UI message stream (`useChat`) and AG-UI
 * (`HttpAgent`), over stored, resumable runs, with auth, ownership and limits. `startServer`
 * runs it on Node (what `glassloop serve` does). See docs/serve.md.
 */
export type { AgentInfo, ServeAgentFactory } from "./agents.js";
export type { AttachmentNote, ServeAttachments } from "./attachments.js";
export type { Principal, ServeAuth } from "./auth.js";
export type { CorsOptions } from "./cors.js";
export {
  type FieldError,
  LeaseLostError,
  type ProblemCode,
  ServeConfigError,
  ServeRequestError,
} from "./errors.js";
export { createHandler, type ServeHandler, type ServeOptions, type ServeStats } from "./handler.js";
export type { ServeLimits } from "./limits.js";
export type { ApprovalItem, LogEntry, LogItem } from "./log-items.js";
export { type NodeServer, type NodeServerOptions, startServer } from "./node-server.js";
export type { PageDirs } from "./page-routes.js";
export { PostgresServeLog } from "./postgres-serve-log.js";
export type { ServeScaleOptions } from "./scale-runs.js";
export type {
  ApprovalRecord,
  ChatRecord,
  NewServeRun,
  RunQuery,
  RunRecord,
  ServeLog,
  ServeNotice,
  ServeRunStatus,
} from "./serve-log.js";
export { defineServe, type ServeModule } from "./serve-module.js";
export { DEFAULT_SERVE_DB, SqliteServeLog } from "./sqlite-serve-log.js";
