/**
 * What the serve log stores per run: glassloop's events (redacted, `run_end` without its
 * transcript) plus the few markers a web client needs and the loop does not emit. Each item is
 * self-contained, so every protocol encodes any item without replaying the ones before it: that
 * is what lets a client join a run at any sequence number (Last-Event-ID) at no extra cost.
 */
import type { AgentEvent } from "../core/vocabulary/events.js";

/** A text or reasoning part of the assistant's message, opened and closed around its deltas. */
export type PartKind = "text" | "reasoning";

/** One tool call waiting for a person, as the stream shows it. */
export interface ApprovalItem {
  /** Opaque, unguessable: the only thing a client sends back to decide. */
  approvalId: string;
  toolCallId: string;
  toolName: string;
  /** The arguments as validated (parsed JSON): exactly what the tool gets if approved. */
  input: unknown;
}

/** One question a tool call asks the person (an MCP server's elicitation), as the stream shows it. */
export interface QuestionItem {
  /** Opaque, unguessable: what a client sends back with its answer. */
  questionId: string;
  toolCallId: string;
  toolName: string;
  /** Who asks (the MCP server's name). */
  source: string;
  /** The asker's text: shown as text, never as markup. */
  message: string;
  /** The flat form asked for (strings, numbers, booleans, choices). */
  schema: Record<string, unknown>;
}

/** One stored item of a run's stream. */
export type LogItem =
  /**
   * A glassloop event; `part` is the open part a `text_delta`/`reasoning_delta` belongs to;
   * `streamed`, on `model_response`, the calls whose input already went as `tool_input_*` items.
   */
  | { kind: "event"; event: AgentEvent; part?: string; streamed?: string[] }
  | { kind: "part_start"; part: string; partKind: PartKind }
  | { kind: "part_end"; part: string; partKind: PartKind }
  /** The model began streaming a tool call's arguments (the call's whole input comes with `model_response`). */
  | { kind: "tool_input_start"; toolCallId: string; toolName: string }
  /** A piece of a streamed tool call's arguments (JSON text, scrubbed). */
  | { kind: "tool_input_delta"; toolCallId: string; delta: string }
  /** A streamed call the response did not keep (its attempt failed and was retried, or the step ended without it). */
  | { kind: "tool_input_dropped"; toolCallId: string; toolName: string; reason: string }
  /**
   * The run paused: these calls wait for a decision (`run_end` with `awaiting_approval` follows).
   * `after`, on a run of scale-out workers: the last worker event mirrored before the pause, where
   * the stream goes on once the calls are decided.
   */
  | { kind: "approval"; approvals: ApprovalItem[]; after?: { op: number; seq: number } }
  /**
   * The run paused: these calls asked the person a question (`run_end` with `awaiting_approval`
   * follows). On a run of scale-out workers: `after`, the last worker event mirrored before the
   * pause (where the stream goes on once answered), and `ticket`, the worker's wait the answers
   * are for (they are sent to that wait and no other).
   */
  | { kind: "question"; questions: QuestionItem[]; after?: { op: number; seq: number }; ticket?: string }
  /** The run continues after a pause (an approval, an answer) or after this server restarted. */
  | { kind: "resumed"; reason: "approval" | "answer" | "restart" }
  /** The run could not go on (its server stopped and it could not be resumed); it ends here. */
  | { kind: "interrupted"; message: string };

/** An item with its place in the run's stream (0, 1, 2, ... with no gap). */
export interface LogEntry {
  seq: number;
  item: LogItem;
}

/** Whether `item` ends a run's stream for good (nothing follows it). */
export function isFinal(item: LogItem): boolean {
  if (item.kind === "interrupted") return true;
  return item.kind === "event" && item.event.type === "run_end" && item.event.status !== "awaiting_approval";
}

/** Whether `item` ends one segment of the stream: the run paused for approval or ended. */
export function endsSegment(item: LogItem): boolean {
  return isFinal(item) || (item.kind === "event" && item.event.type === "run_end");
}
