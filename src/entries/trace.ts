/**
 * `glassloop/trace`: a run's events one by one, written to and read from JSONL trace files,
 * redacted, shown as text or in the local viewer, diffed, and replayed (the `replay:` model and
 * `replayTrace`, which names the first step where an agent diverges from a recording).
 */

export { type RedactionOptions, Redactor } from "../core/redact.js";
export { type DiffEntry, describeEntry, diffRequests, type RequestDiff } from "../core/request-diff.js";
export { TRACE_FORMAT, TRACE_VERSION, type TraceHeader, type TraceRecord } from "../core/trace-format.js";
export type {
  ContextEvent,
  ErrorEvent,
  GuardrailEvent,
  ModelRequestEvent,
  ModelResponseEvent,
  ModelRetryEvent,
  NestedEvent,
  PlanEvent,
  ReasoningDeltaEvent,
  ReasoningDroppedEvent,
  RecallEvent,
  ReflectionEvent,
  RunEndEvent,
  RunStartEvent,
  StepEndEvent,
  StepStartEvent,
  TextDeltaEvent,
  ToolCallEvent,
  ToolResultEvent,
} from "../core/vocabulary/events.js";
export type { TraceRunStatus } from "../core/vocabulary/status.js";
export {
  exchangesOf,
  type RecordedExchange,
  ReplayDivergenceError,
  ReplayedFailureError,
  ReplayModel,
  type ReplayOptions,
} from "../providers/replay.js";
export { buildRunView } from "../trace/build-run-view.js";
export { formatRun, formatRunList } from "../trace/format.js";
export {
  findRun,
  listRuns,
  type ReadTraceOptions,
  readTraceEvents,
  readTraceFile,
  type TraceFile,
  TraceFormatError,
  TraceNotFoundError,
  traceFiles,
} from "../trace/reader.js";
export {
  type Divergence,
  type ReplayableAgent,
  ReplayConfigError,
  type ReplayReport,
  type ReplayTraceOptions,
  replayTrace,
} from "../trace/replay.js";
export { type RunSummary, summarize } from "../trace/run-summary.js";
export type {
  ErrorView,
  GuardrailView,
  RequestView,
  ResponseView,
  RunView,
  StepView,
  ToolCallView,
} from "../trace/run-view.js";
export { startViewer, ViewerNotBuiltError, type ViewerOptions, type ViewerServer } from "../trace/server.js";
export { DEFAULT_TRACE_DIR, TraceWriter, type TraceWriterOptions } from "../trace/writer.js";
