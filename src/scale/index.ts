/**
 * Scale-out (`import { startWorker, ScaleClient } from "glassloop/scale"`): each run a DBOS
 * workflow on Postgres, consumed from a queue by many workers that fail over for each other. A
 * separate entry so the core never loads `@dbos-inc/dbos-sdk` or `pg`, optional peers.
 */

export {
  ApprovalNotWaitingError,
  type ApprovalTarget,
  type WaitingApproval,
} from "../features/approval/approval-rule.js";
export { type AgentFactory, defineWorker, type WorkerModule } from "./agents.js";
export { type EnqueueOptions, ScaleClient } from "./client.js";
export { ScaleUnknownError, WorkerIdTakenError } from "./errors.js";
export type { EventPosition, ScaleEvent } from "./events.js";
export { type CallAnswer, QuestionNotWaitingError, type WaitingQuestion } from "./questions.js";
export { RunHandle } from "./run-handle.js";
export type { QueuedRun } from "./run-list.js";
export { DBOS_SDK, DBOS_SDK_VERSION } from "./sdk.js";
export {
  DEFAULT_QUEUE,
  DEFAULT_VERSION,
  failoverBoundMs,
  type ScaleConnection,
  startWorker,
  type Worker,
  type WorkerOptions,
} from "./worker.js";
export {
  type QueuedRunResult,
  RUN_WORKFLOW,
  type RunRequest,
} from "./workflow.js";
