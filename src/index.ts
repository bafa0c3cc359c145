/**
 * glassloop: a TypeScript agent runtime you can see through.
 *
 * The root holds what every program needs: define tools, build and run an agent (with a model
 * string or your own `Model`), read its result and events, and catch what a run throws. The rest
 * comes from one subpath per room (`glassloop/models`, `/store`, `/memory`, `/tools`, `/trace`,
 * `/multi`, `/testing`, `/mcp`, `/otel`, `/evals`, `/postgres`); the rule and each entry's
 * contents are in docs/architecture.md, "The public API in layers".
 */

// `"openai:gpt-4o-mini"` and the other model strings resolve from here: each provider registers
// its prefix when its module loads.
import "./providers/anthropic/index.js";
import "./providers/azure/index.js";
import "./providers/bedrock/index.js";
import "./providers/google/index.js";
import "./providers/openai-responses/index.js";
import "./providers/presets.js";
import "./providers/replay.js";
import "./providers/vertex/index.js";

export { Agent } from "./agent/agent.js";
export type {
  AgentConfig,
  AgentStream,
  ModelSettings,
  ResumeOptions,
  RunOptions,
  RunResult,
} from "./agent/agent-config.js";
export {
  BudgetExceededError,
  ConfigError,
  GlassloopError,
  LoopDetectedError,
  ModelBehaviorError,
  ModelCallError,
  RunAbortedError,
  RunError,
  type RunErrorState,
  runStatusOf,
  ToolError,
} from "./core/errors.js";
export { MissingDependencyError } from "./core/optional-dependency.js";
export {
  InputTooLargeError,
  NotAFileError,
  PathOutsideError,
  READ_CAPS,
  type ReadKind,
} from "./core/read-caps.js";
export type { ErrorCode } from "./core/vocabulary/error-codes.js";
export type { AgentEvent } from "./core/vocabulary/events.js";
export type { LimitName, Limits } from "./core/vocabulary/limits.js";
export type {
  AssistantMessage,
  FilePart,
  FinishReason,
  ImagePart,
  Message,
  ReasoningPart,
  SystemMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
} from "./core/vocabulary/messages.js";
export type { ToolOutcome, ToolOutcomeStatus } from "./core/vocabulary/outcome.js";
export type { RunStatus } from "./core/vocabulary/status.js";
export type { RunUsage, StepUsage, TokenUsage } from "./core/vocabulary/usage.js";
export {
  type ApprovalHandler,
  ApprovalRequiredError,
  type PendingApproval,
} from "./features/approval/approval.js";
export { ApprovalNotWaitingError } from "./features/approval/approval-rule.js";
export { GuardrailFailedError, GuardrailTripwireError } from "./features/guardrails/errors.js";
export type { Guardrails } from "./features/guardrails/guardrail.js";
export type { LoopGuardOptions } from "./features/loop-guard.js";
export type { EnvironmentOptions } from "./loop/environment/environment.js";
export { AuthenticationError, ContextOverflowError, ProviderError, RateLimitError } from "./models/errors.js";
export type {
  JsonSchema,
  Model,
  ModelDelta,
  ModelObserver,
  ModelPrice,
  ModelRequest,
  ModelResponse,
  ToolChoice,
  ToolSpec,
} from "./models/model.js";
export { resolveModel } from "./providers/resolve.js";
export { RunNotResumableError, SessionBusyError, StoreError, UnknownRunError } from "./store/errors.js";
export type { Store } from "./store/store.js";
export { type AgentTool, type Tool, type ToolDefinition, type ToolRunOptions, tool } from "./tools/tool.js";
export { type RegisterOptions, ToolRegistry } from "./tools/tool-registry.js";
export type { ToolSource } from "./tools/tool-source.js";
