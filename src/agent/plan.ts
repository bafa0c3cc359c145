import { z } from "zod";
import { type AgentTool, tool } from "../tools/tool.js";
import type { ToolCall } from "../vocabulary/messages.js";

/** Name of the built-in tool through which the model writes and revises its plan. */
export const PLAN_TOOL = "update_plan";

/** Planning: before acting, the model writes a plan; after a failed step it revises it. */
export interface PlanOptions {
  /** Ask for a revised plan after a step whose tool call failed (default true). */
  reviseOnFailure?: boolean;
}

const planInput = z.object({
  steps: z
    .array(z.string().min(1))
    .min(1)
    .describe("The remaining steps, in order, one short sentence each."),
});

/**
 * The `update_plan` tool. The plan lives in the transcript as this tool's call, so the model
 * sees it in every later request and it survives history, sessions and resume like any message.
 */
export function planTool(): AgentTool<unknown> {
  return tool({
    name: PLAN_TOOL,
    description:
      "Write your plan before acting, and revise it when a step fails: the steps that remain, in order. Then carry it out with the other tools.",
    input: planInput,
    run: ({ steps }) => `Plan recorded (${steps.length} steps). Now carry out the first step.`,
  });
}

/** The steps of a valid `update_plan` call, or undefined. */
export function planSteps(call: ToolCall): string[] | undefined {
  if (call.name !== PLAN_TOOL) return undefined;
  try {
    const parsed = planInput.safeParse(JSON.parse(call.arguments));
    return parsed.success ? parsed.data.steps : undefined;
  } catch {
    return undefined;
  }
}
