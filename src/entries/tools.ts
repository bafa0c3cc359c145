/**
 * `glassloop/tools`: the built-in tools (calculator, clock, files, HTTP GET, shell), the type
 * helpers of `tool()`, the tool-call environment's defaults, and the names and texts glassloop
 * itself puts into a transcript; a tool's question for the person (`QuestionAsked`, the run's
 * `InputRequiredError` and the question and answer types). `tool` and `ToolRegistry` are at the root.
 */

export {
  InputRequiredError,
  type PendingQuestion,
  QuestionAsked,
} from "../core/questions.js";
export type {
  AskedQuestion,
  PersonAnswer,
  PersonAnswerValue,
  PersonQuestion,
} from "../core/vocabulary/questions.js";

export { NOT_APPROVED } from "../features/approval/approval.js";
export { ENVIRONMENT_DEFAULTS } from "../loop/environment/environment.js";
export { FINAL_RESULT_TOOL } from "../loop/output.js";
export {
  BUILTIN_TOOLS,
  type BuiltinEntry,
  type BuiltinName,
  type BuiltinToolOptions,
  type ClockOptions,
  type ClockReading,
  calculatorTool,
  clockTool,
  ExpressionError,
  type FilesOptions,
  filesTools,
  type HttpGetOptions,
  type HttpGetResult,
  httpGetTool,
  type ShellOptions,
  type ShellResult,
  shellTool,
} from "../tools/builtin/index.js";
export type { ContextSpec, ToolContextOf, ToolResultOf } from "../tools/tool.js";
