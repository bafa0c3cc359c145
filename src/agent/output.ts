import { z } from "zod";
import { type AgentTool, tool } from "../tools/tool.js";

/** Name of the built-in tool that carries a typed final answer. */
export const FINAL_RESULT_TOOL = "final_result";

/**
 * The built-in `final_result` tool for an `output` schema. Tool arguments must be an object, so a
 * non-object schema (a number, a list) is wrapped as `{ result: ... }` and unwrapped again.
 */
export function finalResultTool(schema: z.ZodType): AgentTool<unknown> {
  const isObject = schema instanceof z.ZodObject;
  const input = isObject ? schema : z.object({ result: schema });
  return tool({
    name: FINAL_RESULT_TOOL,
    description: "Call this with the final answer when the task is done. Its arguments are the run's result.",
    input,
    run: (args) => (isObject ? args : (args as { result: unknown }).result),
  });
}

/** Feedback for a plain-text answer when the run must end through a tool. */
export function textNotAllowed(endTools: readonly string[]): string {
  const names = endTools.map((n) => `"${n}"`).join(" or ");
  return `A plain-text answer does not end this task. Call ${names} with the final answer.`;
}
