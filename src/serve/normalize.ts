import type { AgentEvent } from "../core/vocabulary/events.js";
import type { LogItem, PartKind } from "./log-items.js";

/**
 * Turns one run's glassloop events into log items, once, where the run is driven: it opens and
 * closes text and reasoning parts around their deltas (and makes parts of a non-streamed answer's
 * text), drops the transcript from `run_end` (the store holds it; streaming it to every client
 * would cost O(transcript) per turn), and holds back the `run_end` of a pause so the approval
 * item can go before it.
 */
export class EventNormalizer {
  #open: { part: string; kind: PartKind } | undefined;
  #partCount = 0;
  /** Whether the step in progress streamed text deltas (else the response's text is the part). */
  #streamedText = false;
  #heldEnd: AgentEvent | undefined;

  #pendingClose: { part: string; kind: PartKind }[];

  /**
   * `prefix` keeps part ids unique across the drivers of one run (a resume starts a new
   * normalizer); `openParts`: parts a previous driver left open, closed before the next event.
   */
  constructor(
    readonly prefix: string,
    openParts: readonly { part: string; kind: PartKind }[] = [],
  ) {
    this.#pendingClose = [...openParts];
  }

  /** The items for `event`, in order. */
  push(event: AgentEvent): LogItem[] {
    const out: LogItem[] = [];
    for (const open of this.#pendingClose.splice(0))
      out.push({ kind: "part_end", part: open.part, partKind: open.kind });
    switch (event.type) {
      case "step_start":
        this.#close(out);
        this.#streamedText = false;
        out.push({ kind: "event", event });
        return out;
      case "text_delta":
      case "reasoning_delta": {
        const kind: PartKind = event.type === "text_delta" ? "text" : "reasoning";
        if (kind === "text") this.#streamedText = true;
        const part = this.#ensure(kind, out);
        out.push({ kind: "event", event, part });
        return out;
      }
      case "model_response": {
        if (event.purpose === "summary") {
          out.push({ kind: "event", event });
          return out;
        }
        this.#close(out);
        if (!this.#streamedText && event.text !== "") {
          const part = this.#ensure("text", out);
          out.push({
            kind: "event",
            event: {
              type: "text_delta",
              runId: event.runId,
              time: event.time,
              step: event.step,
              text: event.text,
            },
            part,
          });
          this.#close(out);
        }
        out.push({ kind: "event", event });
        return out;
      }
      case "run_end": {
        this.#close(out);
        const ended = { ...event, messages: [] };
        if (event.status === "awaiting_approval") this.#heldEnd = ended;
        else out.push({ kind: "event", event: ended });
        return out;
      }
      case "error":
      case "step_end":
        this.#close(out);
        out.push({ kind: "event", event });
        return out;
      default:
        out.push({ kind: "event", event });
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
    const out: LogItem[] = [];
    for (const open of this.#pendingClose.splice(0))
      out.push({ kind: "part_end", part: open.part, partKind: open.kind });
    this.#close(out);
    return out;
  }

  #ensure(kind: PartKind, out: LogItem[]): string {
    if (this.#open?.kind === kind) return this.#open.part;
    this.#close(out);
    const part = `${kind}-${this.prefix}${this.#partCount++}`;
    this.#open = { part, kind };
    out.push({ kind: "part_start", part, partKind: kind });
    return part;
  }

  #close(out: LogItem[]): void {
    if (!this.#open) return;
    out.push({ kind: "part_end", part: this.#open.part, partKind: this.#open.kind });
    this.#open = undefined;
  }
}
