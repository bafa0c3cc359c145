import type { Tool, ToolRunOptions } from "glassloop";

/** Runs a tool the way the environment does: arguments parsed by its schema, a live signal. */
export async function runTool<R>(
  t: Tool<never, unknown, R>,
  args: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): Promise<R> {
  const parsed = t.input.parse(args) as never;
  return t.run(parsed, {
    signal,
    toolCallId: "call_test",
    messages: [],
  } as unknown as ToolRunOptions<unknown>);
}
