import type { Tool } from "../../../tools/tool.js";
import type { InputGuardrail, OutputGuardrail, ToolGuardrail } from "../guardrail.js";

/** The arguments type of a tool, as its schema parses them. */
type ArgsOf<T> = T extends { run(args: infer A, ...rest: never[]): unknown } ? A : unknown;

/** `T` without `K`, member by member of a union (TypeScript's `Omit` would merge the members). */
type OmitEach<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A tool as `toolGuardrail` needs it: its name and its typed `run`. */
type NamedTool = Pick<Tool, "name"> & { run(args: never, ...rest: never[]): unknown };

/**
 * A tool guardrail. Given a tool first, its checks are typed with that tool's validated
 * arguments and it watches only that tool (by name), so the types hold at run time too.
 */
export function toolGuardrail<TContext = unknown>(
  guardrail: ToolGuardrail<TContext>,
): ToolGuardrail<TContext>;
export function toolGuardrail<T extends NamedTool, TContext = unknown>(
  tool: T,
  guardrail: OmitEach<ToolGuardrail<TContext, ArgsOf<T>>, "tools">,
): ToolGuardrail<TContext, ArgsOf<T>>;
export function toolGuardrail(
  first: NamedTool | ToolGuardrail,
  guardrail?: OmitEach<ToolGuardrail, "tools">,
): ToolGuardrail {
  if (guardrail === undefined) return first as ToolGuardrail;
  return { ...guardrail, tools: [(first as NamedTool).name] };
}

/**
 * An input guardrail, as written (the identity function): outside an agent's config, where
 * nothing else types its verdicts (`"tripwire"` would widen to string), it types them.
 */
export function inputGuardrail<TContext = unknown>(
  guardrail: InputGuardrail<TContext>,
): InputGuardrail<TContext> {
  return guardrail;
}

/** An output guardrail, as written (the identity function), typed for the run's output `TOutput`. */
export function outputGuardrail<TOutput = unknown, TContext = unknown>(
  guardrail: OutputGuardrail<TOutput, TContext>,
): OutputGuardrail<TOutput, TContext> {
  return guardrail;
}
