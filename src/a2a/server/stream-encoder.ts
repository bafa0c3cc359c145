/**
 * A run's log items as A2A stream events: working status updates that carry the answer's text as
 * it arrives and each tool call by name, an input-required status when the run waits for an
 * approval, and at the end the result artifact and the final status.
 */
import type { LogEntry } from "../../serve/log-items.js";
import type { RunRecord } from "../../serve/serve-log.js";
import type { SseEncoder } from "../../serve/sse.js";
import { streamV03 } from "../v03.js";
import { protoEvent } from "../v03-proto.js";
import type { StreamResponse } from "../wire.js";
import { agentMessage, approvalMessage, endStatus, questionMessage } from "./task-view.js";

/** Which spelling a caller speaks, and the JSON-RPC id its stream answers. */
export interface StreamTarget {
  version: "1.0" | "0.3";
  rpcId: string | number | null;
  /** HTTP+JSON streams send each event bare (v0.3: as its proto JSON); JSON-RPC wraps it. */
  binding: "jsonrpc" | "rest";
}

/** The JSON-RPC envelope of one result, in the caller's spelling. */
export function rpcResult(target: StreamTarget, event: StreamResponse): unknown {
  if (target.binding === "rest") return target.version === "0.3" ? protoEvent(event) : event;
  return {
    jsonrpc: "2.0",
    id: target.rpcId,
    result: target.version === "0.3" ? streamV03(event) : event,
  };
}

/** Encodes a run's entries for one SSE response (one per caller: it remembers the last error). */
export function a2aEncoder(run: Pick<RunRecord, "runId" | "chatId">, target: StreamTarget): SseEncoder {
  const events = streamEventsOf(run);
  return { encode: (entry) => events(entry).map((e) => rpcResult(target, e)) };
}

/**
 * A run's entries as A2A stream events, one entry at a time (the function remembers the last
 * error, so use one per reader): for SSE responses and push notifications.
 */
export function streamEventsOf(
  run: Pick<RunRecord, "runId" | "chatId">,
): (entry: LogEntry) => StreamResponse[] {
  let lastError: string | undefined;
  const base = { taskId: run.runId, contextId: run.chatId };
  const working = (
    parts: Parameters<typeof agentMessage>[2],
    id: string,
    metadata: Record<string, unknown>,
  ) =>
    ({
      statusUpdate: {
        ...base,
        status: {
          state: "TASK_STATE_WORKING",
          message: agentMessage(run, id, parts, metadata),
          timestamp: new Date().toISOString(),
        },
      },
    }) satisfies StreamResponse;
  const events = (entry: LogEntry): StreamResponse[] => {
    const { item } = entry;
    if (item.kind === "resumed")
      return [
        {
          statusUpdate: {
            ...base,
            status: { state: "TASK_STATE_WORKING", timestamp: new Date().toISOString() },
          },
        },
      ];
    if (item.kind === "approval")
      return [
        {
          statusUpdate: {
            ...base,
            status: {
              state: "TASK_STATE_INPUT_REQUIRED",
              message: approvalMessage(run, item.approvals),
              timestamp: new Date().toISOString(),
            },
          },
        },
      ];
    if (item.kind === "question")
      return [
        {
          statusUpdate: {
            ...base,
            status: {
              state: "TASK_STATE_INPUT_REQUIRED",
              message: questionMessage(run, item.questions),
              timestamp: new Date().toISOString(),
            },
          },
        },
      ];
    if (item.kind === "interrupted") {
      const ended = endStatus(run, item, lastError);
      return ended ? [{ statusUpdate: { ...base, status: ended.status } }] : [];
    }
    if (item.kind !== "event") return [];
    const event = item.event;
    switch (event.type) {
      case "run_start":
        return [
          {
            statusUpdate: {
              ...base,
              status: { state: "TASK_STATE_WORKING", timestamp: new Date(event.time).toISOString() },
            },
          },
        ];
      case "text_delta":
        return [working([{ text: event.text }], `delta-${entry.seq}`, { glassloop: "text_delta" })];
      case "tool_call":
        return [
          working(
            [{ data: { toolName: event.toolName, toolCallId: event.toolCallId } }],
            `call-${entry.seq}`,
            {
              glassloop: "tool_call",
            },
          ),
        ];
      case "tool_result":
        return [
          working(
            [{ data: { toolName: event.toolName, toolCallId: event.toolCallId, status: event.status } }],
            `result-${entry.seq}`,
            { glassloop: "tool_result" },
          ),
        ];
      case "error":
        lastError = event.message;
        return [];
      case "run_end": {
        const ended = endStatus(run, item, lastError);
        if (!ended) return [];
        const out: StreamResponse[] = [];
        if (ended.artifact)
          out.push({ artifactUpdate: { ...base, artifact: ended.artifact, append: false, lastChunk: true } });
        // A2A has no usage field: the run's totals ride in the final update's metadata, as in GetTask's.
        out.push({ statusUpdate: { ...base, status: ended.status, metadata: { usage: event.usage } } });
        return out;
      }
      default:
        return [];
    }
  };
  return events;
}
