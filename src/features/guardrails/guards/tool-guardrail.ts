import type { Tool } from "../../../tools/tool.js";
import type { ToolGuardrail } from "../guardrail.js";

/** The arguments type of a tool, as its schema parses them. */
type ArgsOf<T> = T extends { run(args: infer A, ...rest: never[]): unknown } ? A : unknown;

/**
 * A tool guardrail for one tool, its checks typed with that tool's validated arguments: it
 * watches only `tool` (by name), so the types hold at run time too.
 */
export function toolGuardrail<
  T extends Pick<Tool, "name"> & { run(args: never, ...rest: never[]): unknown },
  TContext = unknown,
>(tool: T, guardrail: Omit<ToolGuardrail<TContext, ArgsOf<T>>, "tools">): ToolGuardrail<TContext, ArgsOf<T>> {
  return { ...guardrail, tools: [tool.name] };
}
