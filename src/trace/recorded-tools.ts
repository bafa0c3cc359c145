import { ToolError } from "../core/errors.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { Tool } from "../tools/tool.js";

/**
 * Built-in tools a replay runs for real without being asked: they compute from their arguments
 * alone, touching no file, network, clock or process. Every other tool a trace names (files,
 * http_get, clock) is answered from the recording unless the user passes `--run-tools`: a trace
 * is untrusted input, and it chooses the calls.
 */
export const PURE_BUILTINS: ReadonlySet<string> = new Set(["calculator"]);

/**
 * `tool` with its `run` replaced by the recording's answers: the same name, description and
 * schema (the replayed requests stay identical), but each call gets the result the trace
 * recorded for its call id, and nothing runs.
 */
export function answeredFromRecording<T extends Tool<never, unknown, unknown>>(
  tool: T,
  events: readonly AgentEvent[],
): T {
  // Call ids can repeat across steps: each id's results, in recorded order.
  const results = new Map<string, { status: string; content: string }[]>();
  for (const e of events) {
    if (e.type !== "tool_result" || e.toolName !== tool.name) continue;
    const list = results.get(e.toolCallId) ?? [];
    list.push({ status: e.status, content: e.content });
    results.set(e.toolCallId, list);
  }
  return Object.freeze({
    ...tool,
    run: (_args: never, options: { toolCallId: string }) => {
      const recorded = results.get(options.toolCallId)?.shift();
      if (!recorded) {
        throw new ToolError(
          `Not run: this replay answers ${tool.name} from the recording, which has no result for call ${options.toolCallId}.`,
        );
      }
      if (recorded.status !== "ok") throw new ToolError(recorded.content);
      return recorded.content;
    },
  });
}
