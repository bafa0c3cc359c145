import { z } from "zod";
import { once } from "../core/once.js";
import type { ToolCall } from "../core/vocabulary/messages.js";
import type { RunHooks } from "../loop/hooks.js";
import { type AgentTool, tool } from "../tools/tool.js";

/** Name of the built-in tool through which the model writes and revises its plan. */
export const PLAN_TOOL = "update_plan";

/** Planning: before acting, the model writes a plan; after a failed step it revises it. */
export interface PlanOptions {
  /** Ask for a revised plan after a step whose tool call failed (default true). */
  reviseOnFailure?: boolean;
}

// Built on first use: zod schemas cost import time (and zod's own first-use warm-up) in every
// program, and most never plan.
const planInput = once(buildPlanInput);
function buildPlanInput() {
  return z.object({
    steps: z
      .array(z.string().min(1))
      .min(1)
      .describe("The remaining steps, in order, one short sentence each."),
  });
}

/**
 * The `update_plan` tool. The plan lives in the transcript as this tool's call, so the model
 * sees it in every later request and it survives history, sessions and resume like any message.
 */
export function planTool(): AgentTool<unknown> {
  return tool({
    name: PLAN_TOOL,
    description:
      "Write your plan before acting, and revise it when a step fails: the steps that remain, in order. Then carry it out with the other tools.",
    input: planInput(),
    run: ({ steps }) => `Plan recorded (${steps.length} steps). Now carry out the first step.`,
  });
}

/** The steps of a valid `update_plan` call, or undefined. */
export function planSteps(call: ToolCall): string[] | undefined {
  if (call.name !== PLAN_TOOL) return undefined;
  try {
    const parsed = planInput().safeParse(JSON.parse(call.arguments));
    return parsed.success ? parsed.data.steps : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Planning as a run feature: the first model call must call `update_plan`, and so must the one
 * after a step whose tool call failed (with `reviseOnFailure`); each valid plan in a turn is
 * reported as a `plan` event, numbered by revision.
 */
export function planningHooks(reviseOnFailure: boolean): RunHooks {
  let mustPlan = true;
  let revision = 0;
  return {
    modelCall(_state, _step, request, next) {
      return next(mustPlan ? { ...request, toolChoice: { name: PLAN_TOOL } } : request);
    },
    afterTurn(state, step, turn) {
      // A resumed run's interrupted turn was reported when it was planned.
      if (turn.resumed) return;
      for (const p of turn.prepared) {
        const steps = planSteps(p.call);
        if (steps) state.emit({ type: "plan", step, steps, revision: revision++ });
      }
    },
    async decide(_state, _step, result) {
      if (result.kind === "next" && !result.reviewed) mustPlan = reviseOnFailure && result.failed === true;
      return result;
    },
  };
}
