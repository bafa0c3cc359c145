import type { RunUsage } from "../core/vocabulary/usage.js";
import { emptyUsage } from "../loop/usage.js";
import type { ScaleClient } from "../scale/client.js";
import { ServeRequestError } from "./errors.js";
import type { LogItem, PartKind } from "./log-items.js";
import type { EventNormalizer, LeftOpen } from "./normalize.js";
import type { RunChannel } from "./run-channel.js";
import type { RunHub } from "./run-hub.js";
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

/**
 * Ends a run a client cancelled while it waited for approval (nothing drives it, so nobody else
 * would): an error and an `aborted` end in its stream, then the chat is free again. The same for a
 * run driven here and one on scale-out workers.
 */
export async function endWaitingRun(
  hub: RunHub,
  log: ServeLog,
  principal: string,
  run: RunRecord,
): Promise<"aborted"> {
  const runId = run.runId;
  const channel = hub.open(runId, run.lastSeq);
  const time = Date.now();
  channel.append([
    {
      kind: "event",
      event: { type: "error", runId, time, code: "aborted", message: "cancelled by the client" },
    },
    {
      kind: "event",
      event: {
        type: "run_end",
        runId,
        time,
        status: "aborted",
        usage: run.usage ?? emptyUsage(false),
        messages: [],
      },
    },
  ]);
  await hub.close(channel, async () => {
    await log.releaseChat(principal, run.chatId, runId);
    await log.setRunStatus(runId, "aborted");
  });
  return "aborted";
}

/**
 * Ends a run's stream that its worker did not end (cancelled, or refused before it started):
 * what is open is closed, then an error and `run_end`, as a local run's would read.
 */
export function endUnended(
  run: RunRecord,
  normalizer: EventNormalizer,
  put: (items: LogItem[]) => void,
  channel: RunChannel,
  status: "aborted" | "failed",
  message: string,
  usage: RunUsage | undefined,
): void {
  const runId = run.runId;
  const time = Date.now();
  const start: LogItem[] =
    channel.lastSeq < 0
      ? [
          {
            kind: "event",
            event: { type: "run_start", runId, time, model: run.model, input: "", agent: run.agent },
          },
        ]
      : [];
  put([
    ...start,
    ...normalizer.closeAll(),
    {
      kind: "event",
      event: { type: "error", runId, time, code: status === "aborted" ? "aborted" : "internal", message },
    },
    ...normalizer.push({
      type: "run_end",
      runId,
      time,
      status,
      usage: usage ?? emptyUsage(false),
      messages: [],
    }),
  ]);
}

/** What a run on a worker that ended without `run_end` ended with, in one line. */
export async function endMessage(client: ScaleClient, runId: string): Promise<string> {
  try {
    const result = await client.result(runId);
    return result.status === "ok"
      ? "the run ended without its events"
      : `${result.error.code}: ${result.error.message}`;
  } catch {
    return "the run failed on its worker";
  }
}
