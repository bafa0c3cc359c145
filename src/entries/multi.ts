/**
 * `glassloop/multi`: more than one model on a task: agents as tools of another agent, a router that
 * hands a conversation to specialists, a written plan, and reflection by an evaluator (a judge
 * model or your function).
 */
export { PLAN_TOOL, type PlanOptions } from "../features/plan.js";
export {
  type Candidate,
  type Evaluator,
  type EvaluatorTools,
  modelEvaluator,
  type ReflectOptions,
  type Verdict,
} from "../features/reflect.js";
export { type AgentToolOptions, agentAsTool, type SubAgent } from "../multi/as-tool.js";
export {
  type HandoffHistory,
  type RoutedResult,
  Router,
  type RouterConfig,
  type Specialist,
} from "../multi/router.js";
