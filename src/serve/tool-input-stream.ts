import type { StreamRedactor } from "../core/redact-stream.js";
import type { ToolCallDeltaEvent } from "../core/vocabulary/events.js";
import type { ToolCall } from "../core/vocabulary/messages.js";
import type { LogItem } from "./log-items.js";

/** One call whose arguments are streaming. */
interface StreamingCall {
  id?: string;
  name?: string;
  started: boolean;
  /** Scrubbed text of the arguments that came before the call's id and name did. */
  pending: string;
  redact: StreamRedactor;
}

/**
 * The tool calls of one model response while their arguments stream: a call's items start once
 * its id and name are known (providers send them with the first piece, OpenAI-compatible servers
 * sometimes later), and each piece is scrubbed as a stream, so a secret split across pieces is
 * caught like one split across text deltas.
 */
export class ToolInputStreams {
  readonly #calls = new Map<number, StreamingCall>();
  readonly #redactor: () => StreamRedactor;
  readonly #scrub: (text: string) => string;

  constructor(redactor: () => StreamRedactor, scrub: (text: string) => string) {
    this.#redactor = redactor;
    this.#scrub = scrub;
  }

  /** Whether a call is streaming now. */
  get active(): boolean {
    return this.#calls.size > 0;
  }

  /** The items for one piece (none until the call's id and name are known). */
  push(event: ToolCallDeltaEvent): LogItem[] {
    let call = this.#calls.get(event.index);
    if (!call) {
      call = { started: false, pending: "", redact: this.#redactor() };
      this.#calls.set(event.index, call);
    }
    if (call.id === undefined && event.toolCallId) call.id = this.#scrub(event.toolCallId);
    if (call.name === undefined && event.toolName) call.name = this.#scrub(event.toolName);
    const out: LogItem[] = [];
    const shown = call.redact.push(event.argumentsDelta);
    if (!call.started) {
      call.pending += shown;
      if (call.id === undefined || call.name === undefined) return out;
      call.started = true;
      out.push({ kind: "tool_input_start", toolCallId: call.id, toolName: call.name });
      if (call.pending !== "")
        out.push({ kind: "tool_input_delta", toolCallId: call.id, delta: call.pending });
      call.pending = "";
      return out;
    }
    if (shown !== "") out.push({ kind: "tool_input_delta", toolCallId: call.id as string, delta: shown });
    return out;
  }

  /**
   * The response came with its calls: the rest of each streamed call's arguments, and the ids of
   * the calls it kept (a streamed call it did not keep is dropped).
   */
  finish(toolCalls: readonly ToolCall[]): { items: LogItem[]; streamed: string[] } {
    const kept = new Set(toolCalls.map((c) => this.#scrub(c.id)));
    const items: LogItem[] = [];
    const streamed: string[] = [];
    for (const call of this.#calls.values()) {
      if (!call.started) continue;
      const id = call.id as string;
      const rest = call.redact.end();
      if (kept.has(id)) {
        if (rest !== "") items.push({ kind: "tool_input_delta", toolCallId: id, delta: rest });
        streamed.push(id);
      } else {
        items.push(dropped(call, "the response did not keep this call"));
      }
    }
    this.#calls.clear();
    return { items, streamed };
  }

  /** Drops every call streaming now (the attempt failed, or the step ended without a response). */
  drop(reason: string): LogItem[] {
    const items = [...this.#calls.values()].filter((c) => c.started).map((c) => dropped(c, reason));
    this.#calls.clear();
    return items;
  }
}

function dropped(call: StreamingCall, reason: string): LogItem {
  return {
    kind: "tool_input_dropped",
    toolCallId: call.id as string,
    toolName: call.name as string,
    reason,
  };
}
