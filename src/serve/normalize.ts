import type { Redactor } from "../core/redact.js";
import { StreamRedactor } from "../core/redact-stream.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { LogItem, PartKind } from "./log-items.js";
import { ToolInputStreams } from "./tool-input-stream.js";

/** What a previous driver of the run left open (read from the log after a restart). */
export interface LeftOpen {
  parts?: readonly { part: string; kind: PartKind }[];
  toolInputs?: readonly { toolCallId: string; toolName: string }[];
}

/** An open text or reasoning part, with the scrubbing of its stream and its last delta. */
interface OpenPart {
  part: string;
  kind: PartKind;
  redact: StreamRedactor;
  last?: Extract<AgentEvent, { type: "text_delta" | "reasoning_delta" }>;
}

/**
 * Turns one run's glassloop events into log items, once, where the run is driven: it scrubs
 * secrets (deltas as streams, so a secret split across two of them is caught; every other event
 * whole), opens and closes text and reasoning parts around their deltas (and makes parts of a
 * non-streamed answer's text), streams tool-call arguments, drops the transcript from `run_end`
 * (the store holds it; streaming it to every client would cost O(transcript) per turn), and holds
 * back the `run_end` of a pause so the approval item can go before it.
 */
export class EventNormalizer {
  readonly #redactor: Redactor;
  readonly #tools: ToolInputStreams;
  #open: OpenPart | undefined;
  #partCount = 0;
  /** Whether the step in progress streamed text deltas (else the response's text is the part). */
  #streamedText = false;
  #heldEnd: AgentEvent | undefined;
  #leftOpen: LogItem[];

  /** `prefix` keeps part ids unique across the drivers of one run (a resume starts a new normalizer). */
  constructor(
    readonly prefix: string,
    redactor: Redactor,
    leftOpen: LeftOpen = {},
  ) {
    this.#redactor = redactor;
    this.#tools = new ToolInputStreams(
      () => new StreamRedactor(redactor),
      (text) => redactor.text(text),
    );
    this.#leftOpen = [
      ...(leftOpen.parts ?? []).map((p): LogItem => ({ kind: "part_end", part: p.part, partKind: p.kind })),
      ...(leftOpen.toolInputs ?? []).map(
        (t): LogItem => ({
          kind: "tool_input_dropped",
          ...t,
          reason: "the server stopped while it streamed",
        }),
      ),
    ];
  }

  /** The items for `event`, in order. */
  push(event: AgentEvent): LogItem[] {
    const out: LogItem[] = this.#leftOpen.splice(0);
    switch (event.type) {
      case "text_delta":
      case "reasoning_delta": {
        const kind: PartKind = event.type === "text_delta" ? "text" : "reasoning";
        if (kind === "text") this.#streamedText = true;
        const open = this.#ensure(kind, out);
        open.last = event;
        const text = open.redact.push(event.text);
        if (text !== "") out.push({ kind: "event", event: { ...event, text }, part: open.part });
        return out;
      }
      case "tool_call_delta":
        this.#close(out);
        out.push(...this.#tools.push(event));
        return out;
      case "model_retry":
        out.push(...this.#tools.drop("the attempt failed; the model was asked again"));
        out.push({ kind: "event", event: this.#redactor.value(event) });
        return out;
      case "model_response":
        return this.#response(this.#redactor.value(event), out);
      case "run_end": {
        this.#endStep(out);
        const ended = { ...this.#redactor.value({ ...event, messages: [] }) };
        if (event.status === "awaiting_approval") this.#heldEnd = ended;
        else out.push({ kind: "event", event: ended });
        return out;
      }
      case "step_start":
        this.#endStep(out);
        this.#streamedText = false;
        out.push({ kind: "event", event: this.#redactor.value(event) });
        return out;
      case "error":
      case "step_end":
        this.#endStep(out);
        out.push({ kind: "event", event: this.#redactor.value(event) });
        return out;
      default:
        out.push({ kind: "event", event: this.#redactor.value(event) });
        return out;
    }
  }

  /** The held-back `run_end` of a pause, if any (taken: a second call returns undefined). */
  takeHeldEnd(): AgentEvent | undefined {
    const held = this.#heldEnd;
    this.#heldEnd = undefined;
    return held;
  }

  /** Items that close whatever is still open (a run that stopped without `run_end`). */
  closeAll(): LogItem[] {
    const out: LogItem[] = this.#leftOpen.splice(0);
    this.#close(out);
    out.push(...this.#tools.drop("the run stopped while it streamed"));
    return out;
  }

  #response(event: Extract<AgentEvent, { type: "model_response" }>, out: LogItem[]): LogItem[] {
    if (event.purpose === "summary") {
      out.push({ kind: "event", event });
      return out;
    }
    this.#close(out);
    const { items, streamed } = this.#tools.finish(event.toolCalls);
    out.push(...items);
    if (!this.#streamedText && event.text !== "") {
      const open = this.#ensure("text", out);
      const { runId, time, step, text } = event;
      out.push({ kind: "event", event: { type: "text_delta", runId, time, step, text }, part: open.part });
      this.#close(out);
    }
    out.push({ kind: "event", event, ...(streamed.length > 0 && { streamed }) });
    return out;
  }

  #endStep(out: LogItem[]): void {
    this.#close(out);
    out.push(...this.#tools.drop("the step ended without this call"));
  }

  #ensure(kind: PartKind, out: LogItem[]): OpenPart {
    if (this.#open?.kind === kind) return this.#open;
    this.#close(out);
    const part = `${kind}-${this.prefix}${this.#partCount++}`;
    this.#open = { part, kind, redact: new StreamRedactor(this.#redactor) };
    out.push({ kind: "part_start", part, partKind: kind });
    return this.#open;
  }

  /** Closes the open part: the text its scrubbing held back goes first. */
  #close(out: LogItem[]): void {
    const open = this.#open;
    if (!open) return;
    const rest = open.redact.end();
    if (rest !== "" && open.last)
      out.push({ kind: "event", event: { ...open.last, text: rest }, part: open.part });
    out.push({ kind: "part_end", part: open.part, partKind: open.kind });
    this.#open = undefined;
  }
}
