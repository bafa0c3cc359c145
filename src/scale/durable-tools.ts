import { ToolError } from "../errors.js";
import { interruptedContent } from "../features/durability/resume.js";
import type { AgentTool, ToolRunOptions } from "../tools/tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import type { RunSteps } from "./run-steps.js";

/** A tool call as DBOS records it. Errors are kept as data: a revived exception loses its class. */
type RecordedCall =
  | { kind: "ok"; value: unknown }
  | { kind: "tool_error"; message: string }
  | { kind: "error"; message: string; stack?: string }
  | { kind: "interrupted" };

/**
 * `tool` with every call a DBOS step named `tool:<name>`. A tool that is not idempotent gets a
 * start-marker step (`start:<name>`) first: a replay that finds the marker but no result knows the
 * call was cut off by a crash, and answers it as the SQLite store's resume does ("interrupted",
 * never run twice); an idempotent tool simply runs again. Both steps take their ids at once, when
 * the call starts, so a turn's parallel calls keep their ids on every execution.
 */
export function durableTool<T extends AgentTool<never>>(tool: T, steps: RunSteps): T {
  const run = tool.run.bind(tool) as (args: unknown, options: ToolRunOptions<unknown>) => unknown;
  const execute = async (args: unknown, options: ToolRunOptions<unknown>): Promise<RecordedCall> => {
    try {
      return { kind: "ok", value: await run(args, options) };
    } catch (error) {
      if (error instanceof ToolError) return { kind: "tool_error", message: error.message };
      return {
        kind: "error",
        message: error instanceof Error ? error.message : String(error),
        ...(error instanceof Error && error.stack !== undefined && { stack: error.stack }),
      };
    }
  };
  const durableRun = (args: unknown, options: ToolRunOptions<unknown>): Promise<unknown> => {
    if (tool.idempotent) return steps.step(`tool:${tool.name}`, () => execute(args, options)).then(unwrap);
    let started = false;
    const marker = steps.step(`start:${tool.name}`, async () => {
      started = true;
      return options.toolCallId;
    });
    const call = steps.step(`tool:${tool.name}`, async () => {
      await marker;
      // The marker came from the record, and this step did not: the call was running when the
      // worker died, and its effect is unknown.
      if (!started) return { kind: "interrupted" } as const;
      return execute(args, options);
    });
    return call.then((recorded) => unwrap(recorded, tool.name));
  };
  return Object.freeze({ ...tool, run: durableRun }) as T;
}

function unwrap(recorded: RecordedCall, toolName?: string): unknown {
  switch (recorded.kind) {
    case "ok":
      return recorded.value;
    case "tool_error":
      throw new ToolError(recorded.message);
    case "interrupted":
      throw new ToolError(interruptedContent(toolName ?? "the tool"));
    case "error": {
      const error = new Error(recorded.message);
      if (recorded.stack !== undefined) error.stack = recorded.stack;
      throw error;
    }
  }
}

/** The agent's tools, each made durable; a registry keeps which of them end the run. */
export function durableTools<TContext>(
  tools: readonly AgentTool<TContext>[] | ToolRegistry<TContext, unknown, boolean> | undefined,
  steps: RunSteps,
): AgentTool<TContext>[] | ToolRegistry<TContext, unknown, boolean> | undefined {
  if (tools === undefined) return undefined;
  if (!(tools instanceof ToolRegistry)) return tools.map((t) => durableTool(t, steps));
  const registry = new ToolRegistry<TContext, unknown, boolean>();
  for (const t of tools.list()) registry.register(durableTool(t, steps), { terminal: t.terminal });
  return registry;
}
