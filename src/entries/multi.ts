/**
 * `glassloop/multi`: more than one model on a task: agents as tools of another agent, a router that
 * hands a conversation to specialists, a written plan, and reflection by an evaluator (a judge
 * model or your function).
 */

export { type AgentToolOptions, agentAsTool, type SubAgent } from "../agent/as-tool.js";
export { PLAN_TOOL, type PlanOptions } from "../features/plan.js";
export type {
  Candidate,
  Evaluator,
  EvaluatorTools,
  ReflectOptions,
  Verdict,
} from "../features/reflect.js";
export { modelEvaluator } from "../multi/model-evaluator.js";
export {
  type HandoffHistory,
  type RoutedResult,
  Router,
  type RouterConfig,
  type Specialist,
} from "../multi/router.js";
