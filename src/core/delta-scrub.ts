/**
 * A run's streamed pieces (text, reasoning and tool-argument deltas) scrubbed as streams, for sinks
 * that write events one at a time: a trace, the scale-out event log, the terminal. Scrubbing each
 * piece alone misses a secret split across two of them, so each stream (one kind of delta of one
 * step, or the arguments of one tool call) goes through one `PieceRedactor`: a delta waits until
 * its text is final, then leaves with its part of the scrubbed stream. Any other event of the same
 * run first lets out what its streams still hold. Every delta leaves once, in order, with its own
 * fields (its text maybe shorter, or empty where a secret that began before it was cut out), so a
 * sink that counts or numbers events counts them as before.
 */
import type { Redactor } from "./redact.js";
import { PieceRedactor } from "./redact-stream.js";
import type { AgentEvent } from "./vocabulary/events.js";

/** The events that carry a piece of a stream. */
export type DeltaEvent = Extract<AgentEvent, { type: "text_delta" | "reasoning_delta" | "tool_call_delta" }>;

interface OpenStream {
  runId: string;
  /** The stream's first delta: what tells the stream's deltas (see `sameStream`). */
  first: DeltaEvent;
  redact: PieceRedactor;
  /** The deltas whose text is not final yet, in order. */
  held: DeltaEvent[];
}

/** Whether `event` carries a piece of a stream. */
export function isDelta(event: AgentEvent): event is DeltaEvent {
  return event.type === "text_delta" || event.type === "reasoning_delta" || event.type === "tool_call_delta";
}

/**
 * Scrubs the deltas of any number of runs as streams: `push` each event in order; `write` receives
 * what may leave now, in order (deltas with their text scrubbed, every other event as given, for
 * the sink to scrub whole). `end` lets out what every stream still holds.
 */
export class DeltaScrubber {
  readonly #redactor: Redactor;
  readonly #streams = new Map<string, OpenStream>();
  /** The stream the last delta went to (still open: it is forgotten when its stream ends). */
  #last: OpenStream | undefined;

  constructor(redactor: Redactor) {
    this.#redactor = redactor;
  }

  /** Takes `event`; passes to `write` what may leave now. */
  push(event: AgentEvent, write: (event: AgentEvent) => void): void {
    if (!isDelta(event)) {
      if (this.#streams.size > 0) this.#endRun(event.runId, write);
      write(event);
      return;
    }
    // A stream's deltas come in runs: the stream of the last delta is checked before a key is made.
    let stream = this.#last;
    if (stream === undefined || !sameStream(stream.first, event)) {
      const key = keyOf(event);
      stream = this.#streams.get(key);
      if (stream === undefined) {
        stream = { runId: event.runId, first: event, redact: new PieceRedactor(this.#redactor), held: [] };
        this.#streams.set(key, stream);
      }
      this.#last = stream;
    }
    stream.held.push(event);
    release(stream, stream.redact.push(pieceOf(event)), write);
  }

  /** Lets out what every open stream still holds (the runs stopped without another event). */
  end(write: (event: AgentEvent) => void): void {
    for (const [key, stream] of this.#streams) {
      this.#streams.delete(key);
      if (this.#last === stream) this.#last = undefined;
      release(stream, stream.redact.end(), write);
    }
  }

  #endRun(runId: string, write: (event: AgentEvent) => void): void {
    for (const [key, stream] of this.#streams) {
      if (stream.runId !== runId) continue;
      this.#streams.delete(key);
      if (this.#last === stream) this.#last = undefined;
      release(stream, stream.redact.end(), write);
    }
  }
}

/** The first held deltas, one per scrubbed text, leave with that text. */
function release(stream: OpenStream, texts: readonly string[], write: (event: AgentEvent) => void): void {
  if (texts.length === 0) return;
  const leaving = stream.held.splice(0, texts.length);
  for (let i = 0; i < leaving.length; i++) {
    const event = leaving[i] as DeltaEvent;
    const text = texts[i] as string;
    if (event.type === "tool_call_delta")
      write(event.argumentsDelta === text ? event : { ...event, argumentsDelta: text });
    else write(event.text === text ? event : { ...event, text });
  }
}

function pieceOf(event: DeltaEvent): string {
  return event.type === "tool_call_delta" ? event.argumentsDelta : event.text;
}

/** Whether `b` belongs to the stream of `a` (what `keyOf` tells, without making the key). */
function sameStream(a: DeltaEvent, b: DeltaEvent): boolean {
  if (a.type !== b.type || a.runId !== b.runId || a.step !== b.step) return false;
  return a.type !== "tool_call_delta" || a.index === (b as typeof a).index;
}

/** One stream: a run's text or reasoning of one step, or the arguments of one call of a step. */
function keyOf(event: DeltaEvent): string {
  const index = event.type === "tool_call_delta" ? event.index : -1;
  return `${event.runId}\u0000${event.type}\u0000${event.step}\u0000${index}`;
}
