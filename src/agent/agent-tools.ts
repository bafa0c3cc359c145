import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import type { Guardrails } from "../features/guardrails/guardrail.js";
import { PLAN_TOOL, planTool } from "../features/plan.js";
import type { ReflectOptions } from "../features/reflect.js";
import { formatIssues } from "../loop/environment/feedback.js";
import type { OtherModel } from "../loop/limits-check.js";
import { FINAL_RESULT_TOOL } from "../loop/output.js";
import { type AgentTool, type ContextSpec, type Tool, tool } from "../tools/tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import type { ToolSource } from "../tools/tool-source.js";
import type { AgentConfig } from "./agent-config.js";

/**
 * The tool registry of agent `name`: its own tools, plus `final_result` for `output` and
 * `update_plan` for `plan`; a clash, a reserved name or a bad tool limit is a ConfigError.
 */
export function agentRegistry<TContext, TOutput>(
  name: string,
  config: AgentConfig<TContext, TOutput>,
): ToolRegistry<TContext, unknown, boolean> {
  const registry = ToolRegistry.from<TContext>([]);
  const given = config.tools instanceof ToolRegistry ? config.tools.list() : (config.tools ?? []);
  for (const t of given) registry.register(t, { terminal: t.terminal });
  const terminal = registry.terminalTools().map((t) => t.name);
  if (config.output !== undefined) {
    if (terminal.length > 0) {
      throw new ConfigError(
        `Agent "${name}": "output" and terminal tools (${terminal.join(", ")}) both try to end the run. ` +
          "Use output (the run ends through final_result) or terminal tools, not both.",
      );
    }
    if (registry.has(FINAL_RESULT_TOOL)) {
      throw new ConfigError(`Agent "${name}": the tool name "${FINAL_RESULT_TOOL}" is reserved for "output"`);
    }
    registry.register(finalResultTool(config.output) as AgentTool<TContext>, { terminal: true });
  }
  if (config.plan) {
    if (registry.has(PLAN_TOOL)) {
      throw new ConfigError(`Agent "${name}": the tool name "${PLAN_TOOL}" is reserved for "plan"`);
    }
    registry.register(planTool() as AgentTool<TContext>);
  }
  for (const t of registry.list()) {
    checkEnvironmentOptions({ timeoutMs: t.timeoutMs, maxResultChars: t.maxResultChars }, `Tool "${t.name}"`);
  }
  return registry;
}

/**
 * Keeps `registry` in step with `source` (an MCP server): its tools now, and again whenever it
 * says they changed. Returns the function that stops following.
 */
export function followToolSource<TContext>(
  registry: ToolRegistry<TContext, unknown, boolean>,
  source: ToolSource,
): () => void {
  let names: string[] = [];
  const sync = () => {
    for (const name of names) registry.unregister(name);
    names = [];
    for (const t of source.tools()) {
      if (registry.has(t.name)) {
        throw new ConfigError(`Tool "${t.name}" from "${source.name}" clashes with a tool of the same name`);
      }
      registry.register(t as AgentTool<TContext>);
      names.push(t.name);
    }
  };
  sync();
  return source.onChange(() => {
    try {
      sync();
    } catch (error) {
      process.emitWarning(`glassloop: tools of "${source.name}" not updated: ${String(error)}`);
    }
  });
}

/** The models a run of this agent calls besides its own: sub-agents' (at any depth) and the evaluator's. */
export function otherModels(
  registry: ToolRegistry<never, unknown, boolean> | ToolRegistry<unknown, unknown, boolean>,
  reflect: ReflectOptions | undefined,
  guardrails?: Guardrails,
): OtherModel[] {
  const found: OtherModel[] = [];
  for (const t of registry.list())
    for (const { model, path } of t.models ?? [])
      found.push({ model, via: `sub-agent tool ${path.map((n) => JSON.stringify(n)).join(" > ")}` });
  for (const model of reflect?.evaluator.models ?? []) found.push({ model, via: "evaluator" });
  const { input = [], output = [], tools = [] } = guardrails ?? {};
  for (const g of [...input, ...output, ...tools])
    for (const model of g.models ?? []) found.push({ model, via: `guardrail ${JSON.stringify(g.name)}` });
  return found;
}

/**
 * The built-in `final_result` tool for an `output` schema. Tool arguments must be an object, so a
 * non-object schema (a number, a list) is wrapped as `{ result: ... }` and unwrapped again.
 */
function finalResultTool(schema: z.ZodType): AgentTool<unknown> {
  const isObject = schema instanceof z.ZodObject;
  const input = isObject ? schema : z.object({ result: schema });
  return tool({
    name: FINAL_RESULT_TOOL,
    description: "Call this with the final answer when the task is done. Its arguments are the run's result.",
    input,
    run: (args) => (isObject ? args : (args as { result: unknown }).result),
  });
}

const WHOLE = new Set<string>(["maxArgumentChars", "maxResultChars", "concurrency", "maxToolCallsPerTurn"]);

/**
 * Throws a ConfigError for an option that is not a whole number (timeouts: a number) of at least 1
 * (`Infinity` means no limit); `where` names the owner, e.g. `environment` or `Tool "x"`.
 */
export function checkEnvironmentOptions(options: Record<string, unknown>, where: string): void {
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const whole = WHOLE.has(key);
    const ok =
      typeof value === "number" &&
      value > 0 &&
      (whole ? Number.isInteger(value) || value === Number.POSITIVE_INFINITY : !Number.isNaN(value));
    if (!ok) {
      throw new ConfigError(
        `${where}: ${key} must be ${whole ? "a whole number" : "a number"} > 0 (or Infinity for no limit), got ${String(value)}`,
      );
    }
  }
}

function isZodSchema(spec: ContextSpec<unknown>): spec is z.ZodType {
  return typeof (spec as { safeParse?: unknown }).safeParse === "function";
}

/** A short, secret-free description of a value's type for error messages. */
function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined (no context was given to the agent)";
  if (typeof value !== "object") return typeof value;
  const ctor = (value as { constructor?: { name?: string } }).constructor?.name;
  if (ctor && ctor !== "Object") return `an instance of ${ctor}`;
  return `a plain object with keys {${Object.keys(value).join(", ")}}`;
}

/** Whether `context` satisfies `spec`, and if not, what was expected. */
function contextMismatch(spec: ContextSpec<unknown>, context: unknown): string | undefined {
  if (isZodSchema(spec)) {
    const parsed = spec.safeParse(context);
    if (parsed.success) return undefined;
    return `a context matching its zod schema (${formatIssues(parsed.error.issues)})`;
  }
  if (context instanceof spec) return undefined;
  return `an instance of ${spec.name || "its context class"}`;
}

/**
 * Checks the agent's hidden context against every tool's declaration, at construction time,
 * so a wiring mistake fails before any model call. Only type names reach the message, never values.
 */
export function checkContext(tools: readonly Tool<never, never, unknown>[], context: unknown): void {
  for (const t of tools) {
    if (t.context === undefined) continue;
    const expected = contextMismatch(t.context as ContextSpec<unknown>, context);
    if (expected !== undefined) {
      throw new TypeError(
        `Tool "${t.name}" requires ${expected}, but the agent's context is ${describeValue(context)}`,
      );
    }
  }
}
