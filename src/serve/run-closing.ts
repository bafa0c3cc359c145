import { emptyUsage } from "../loop/usage.js";
import { ServeRequestError } from "./errors.js";
import type { PartKind } from "./log-items.js";
import type { EventNormalizer, LeftOpen } from "./normalize.js";
import type { RunChannel } from "./run-channel.js";
import type { RunRecord, ServeLog } from "./serve-log.js";

/** A run that failed before its first event (bad config, a busy session) still ends its stream. */
export function failBeforeStart(
  run: RunRecord,
  channel: RunChannel,
  normalizer: EventNormalizer,
  message: string,
): void {
  const time = Date.now();
  const runId = run.runId;
  channel.append([
    ...normalizer.closeAll(),
    ...(channel.lastSeq < 0
      ? [
          {
            kind: "event" as const,
            event: { type: "run_start" as const, runId, time, model: run.model, input: "", agent: run.agent },
          },
        ]
      : []),
    { kind: "event", event: { type: "error", runId, time, code: "internal", message } },
    {
      kind: "event",
      event: {
        type: "run_end",
        runId,
        time,
        status: "failed",
        usage: run.usage ?? emptyUsage(false),
        messages: [],
      },
    },
  ]);
}

/** The one line a caller reads about a run that could not start: a code and message, never a stack. */
export function describe(error: unknown): string {
  if (error instanceof ServeRequestError) return error.message;
  if (error instanceof Error && "code" in error && typeof error.code === "string")
    return `${error.code}: ${error.message}`;
  return "the run could not start";
}

/** The parts and streaming tool calls a stopped driver left open, read from the log. */
export async function openParts(log: ServeLog, runId: string): Promise<LeftOpen> {
  const parts = new Map<string, PartKind>();
  const tools = new Map<string, string>();
  for (let after = -1; ; ) {
    const entries = await log.read(runId, after, 500);
    if (entries.length === 0) break;
    for (const { item } of entries) {
      if (item.kind === "part_start") parts.set(item.part, item.partKind);
      else if (item.kind === "part_end") parts.delete(item.part);
      else if (item.kind === "tool_input_start") tools.set(item.toolCallId, item.toolName);
      else if (item.kind === "tool_input_dropped") tools.delete(item.toolCallId);
      else if (item.kind === "event" && item.streamed) for (const id of item.streamed) tools.delete(id);
    }
    after = (entries.at(-1) as { seq: number }).seq;
  }
  return {
    parts: [...parts].map(([part, kind]) => ({ part, kind })),
    toolInputs: [...tools].map(([toolCallId, toolName]) => ({ toolCallId, toolName })),
  };
}
