/** glassloop: a TypeScript agent runtime you can see through. */
export {
  Agent,
  type AgentConfig,
  type AgentConfigWithOutput,
  type AgentConfigWithoutOutput,
  type AgentStream,
  type ModelSettings,
  type ResumeOptions,
  type RunOptions,
  type RunResult,
} from "./agent/agent.js";
export {
  type ApprovalHandler,
  ApprovalRequiredError,
  NOT_APPROVED,
  type PendingApproval,
} from "./agent/approval.js";
export { LIMIT_DEFAULTS, type Limits, type RemainingBudget } from "./agent/budget.js";
export type { RecallOptions } from "./agent/context-view.js";
export type { LoopGuardOptions } from "./agent/loop-guard.js";
export { FINAL_RESULT_TOOL } from "./agent/output.js";
export { PLAN_TOOL, type PlanOptions } from "./agent/plan.js";
export {
  type Candidate,
  type Evaluator,
  type EvaluatorTools,
  modelEvaluator,
  type ReflectOptions,
  type Verdict,
} from "./agent/reflect.js";
export type { RunUsage, StepUsage } from "./agent/usage.js";
export { ENVIRONMENT_DEFAULTS, type EnvironmentOptions } from "./environment/environment.js";
export {
  BudgetExceededError,
  ConfigError,
  type ErrorCode,
  GlassloopError,
  type LimitName,
  LoopDetectedError,
  ModelBehaviorError,
  ModelCallError,
  RunAbortedError,
  RunError,
  type RunErrorState,
  runStatusOf,
  ToolError,
} from "./errors.js";
export { type Embedder, OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from "./memory/embeddings.js";
export { FILE_MEDIA_TYPES, MAX_FILE_BYTES } from "./memory/files.js";
export { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES } from "./memory/images.js";
export {
  LongTermMemory,
  type LongTermMemoryOptions,
  type MemoryScope,
  type RecallMode,
} from "./memory/long-term.js";
export { MEMORY_TOOLS, memoryTools } from "./memory/memory-tools.js";
export { messageSchema, parseHistory } from "./memory/message-schema.js";
export type { MemoryContext, MemoryStrategy, SummaryRequest } from "./memory/strategy.js";
export { SUMMARY_PREFIX, SummaryMemory, type SummaryMemoryOptions } from "./memory/summary-memory.js";
export {
  CHARS_PER_TOKEN,
  encodingFor,
  estimateTokens,
  TokenCounter,
  type TokenEncoding,
} from "./memory/tokens.js";
export { fitWindow, WindowMemory, type WindowMemoryOptions } from "./memory/window-memory.js";
export { ANTHROPIC_CACHE_DEFAULT, type AnthropicCachePolicy } from "./models/anthropic/cache.js";
export {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_VERSION,
  AnthropicModel,
  type AnthropicOptions,
  anthropic,
} from "./models/anthropic/index.js";
export { UnsupportedContentError } from "./models/attachments.js";
export * from "./models/errors.js";
export {
  GEMINI_DEFAULT_BASE_URL,
  GeminiBlockedError,
  GeminiModel,
  type GeminiOptions,
  GeminiSchemaError,
  google,
  toGeminiSchema,
} from "./models/google/index.js";
export {
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_RETRY,
  type HttpOptions,
  type RetryPolicy,
} from "./models/http/index.js";
export {
  type DownloadProgress,
  LOCAL_ENGINE_INSTALL,
  type LocalLogLevel,
  LocalModel,
  LocalModelError,
  type LocalModelErrorCode,
  type LocalModelInfo,
  type LocalModelOptions,
  type LocalModelSource,
  modelCacheDir,
  parseLocalModelName,
  probeLocalEngine,
} from "./models/local/index.js";
export * from "./models/model.js";
export { OpenAIChatModel, type OpenAIChatOptions } from "./models/openai/model.js";
export {
  COMPATIBLE_QUIRKS,
  OPENAI_QUIRKS,
  OPENAI_TOOL_CALL_IDS,
  type OpenAIQuirks,
} from "./models/openai/quirks.js";
export {
  OPENAI_RESPONSES_DEFAULT_BASE_URL,
  OpenAIResponsesModel,
  type OpenAIResponsesOptions,
  openaiResponses,
} from "./models/openai-responses/index.js";
export {
  deepseek,
  groq,
  OPENAI_PRESETS,
  type OpenAIPreset,
  type OpenAIPresetName,
  ollama,
  openai,
  openrouter,
  type PresetOptions,
  presetModel,
} from "./models/presets.js";
export { priceOf, setModelPrice } from "./models/prices.js";
export { type Extraction, extractToolCalls } from "./models/prompted/extract.js";
export { INVALID_PROMPTED_CALL, prompted } from "./models/prompted.js";
export {
  exchangesOf,
  type RecordedExchange,
  ReplayDivergenceError,
  ReplayedFailureError,
  ReplayModel,
  type ReplayOptions,
} from "./models/replay.js";
export { type ProviderFactory, registerProvider, resolveModel } from "./models/resolve.js";
export {
  ANTHROPIC_TOOL_CALL_IDS,
  normalizeToolCallIds,
  type ToolCallIdRules,
} from "./models/tool-call-ids.js";
export { type AgentToolOptions, agentAsTool, type SubAgent } from "./multi/as-tool.js";
export {
  type HandoffHistory,
  type RoutedResult,
  Router,
  type RouterConfig,
  type Specialist,
} from "./multi/router.js";
export { MissingDependencyError } from "./optional-dependency.js";
export { defaultStore } from "./store/default-store.js";
export {
  DatabaseCorruptError,
  DatabaseLockedError,
  DatabaseOpenError,
  RunBusyError,
  RunNotResumableError,
  SchemaTooNewError,
  SessionBusyError,
  StoreError,
  UnknownRunError,
  UnknownSessionError,
} from "./store/errors.js";
export { MIGRATIONS, SCHEMA_VERSION } from "./store/migrations.js";
export { redactingStore, type StoreScrubber } from "./store/redacting-store.js";
export { defaultDatabasePath, type SqliteOptions } from "./store/sqlite-open.js";
export { SqliteStore } from "./store/sqlite-store.js";
export type * from "./store/store.js";
export {
  BUILTIN_TOOLS,
  type BuiltinEntry,
  type BuiltinName,
  type BuiltinToolOptions,
  type ClockOptions,
  type ClockReading,
  calculate,
  calculatorTool,
  clockTool,
  ExpressionError,
  type FilesOptions,
  filesTools,
  type HttpGetOptions,
  type HttpGetResult,
  httpGetTool,
  isPrivateAddress,
  type ShellOptions,
  type ShellResult,
  shellTool,
} from "./tools/builtin/index.js";
export {
  type AgentTool,
  type ContextSpec,
  type Tool,
  type ToolContextOf,
  type ToolDefinition,
  type ToolResultOf,
  type ToolRunOptions,
  tool,
} from "./tools/tool.js";
export { type RegisterOptions, ToolRegistry } from "./tools/tool-registry.js";
export type { ToolSource } from "./tools/tool-source.js";
export { formatRun, formatRunList } from "./trace/format.js";
export {
  findRun,
  listRuns,
  readTraceEvents,
  readTraceFile,
  TraceFormatError,
  TraceNotFoundError,
  traceFiles,
} from "./trace/reader.js";
export { type RedactionOptions, Redactor } from "./trace/redact.js";
export {
  type Divergence,
  type ReplayableAgent,
  ReplayConfigError,
  type ReplayReport,
  type ReplayTraceOptions,
  replayTrace,
} from "./trace/replay.js";
export {
  type DiffEntry,
  describeEntry,
  diffRequests,
  type RequestDiff,
} from "./trace/request-diff.js";
export type * from "./trace/run-view.js";
export { buildRunView, summarize } from "./trace/run-view.js";
export {
  findViewerAssets,
  startViewer,
  ViewerNotBuiltError,
  type ViewerOptions,
  type ViewerServer,
} from "./trace/server.js";
export {
  parseTraceText,
  TRACE_FORMAT,
  TRACE_VERSION,
  type TraceHeader,
  type TraceRecord,
} from "./trace/trace-format.js";
export { DEFAULT_TRACE_DIR, TraceWriter, type TraceWriterOptions } from "./trace/writer.js";
export type * from "./vocabulary/events.js";
export * from "./vocabulary/messages.js";
export type { ToolOutcome } from "./vocabulary/outcome.js";
