/** glassloop: a TypeScript agent runtime you can see through. */
export {
  Agent,
  type AgentConfig,
  type AgentConfigWithOutput,
  type AgentConfigWithoutOutput,
  type AgentStream,
  type ModelSettings,
  type RunOptions,
  type RunResult,
} from "./agent/agent.js";
export { LIMIT_DEFAULTS, type Limits, type RemainingBudget } from "./agent/budget.js";
export type * from "./agent/events.js";
export type { LoopGuardOptions } from "./agent/loop-guard.js";
export { FINAL_RESULT_TOOL } from "./agent/output.js";
export type { RunUsage, StepUsage } from "./agent/usage.js";
export { ENVIRONMENT_DEFAULTS, type EnvironmentOptions } from "./environment/environment.js";
export {
  BudgetExceededError,
  ConfigError,
  GlassloopError,
  type LimitName,
  LoopDetectedError,
  ModelBehaviorError,
  ModelCallError,
  RunAbortedError,
  RunError,
  type RunErrorState,
  ToolError,
} from "./errors.js";
export { messageSchema, parseHistory } from "./memory/message-schema.js";
export * from "./memory/messages.js";
export * from "./models/model.js";
export { type ProviderFactory, registerProvider, resolveModel } from "./models/resolve.js";
export { type AgentToolOptions, agentAsTool, type SubAgent } from "./multi/as-tool.js";
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
