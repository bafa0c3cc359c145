import { StringDecoder } from "node:string_decoder";
import { readStream } from "./reply.js";

/** One server-sent event: `event` is the `event:` field (undefined for plain `data:` events). */
export interface SseEvent {
  /** The event's `data:` lines, joined with `\n`. */
  data: string;
  /** The `event:` field, when the event had a non-empty one. */
  event?: string | undefined;
  /** The `id:` field, when the event had one. */
  id?: string | undefined;
}

/** Handles one event; return `true` when the protocol says the stream is complete (e.g. `[DONE]`). */
export type SseHandler = (event: SseEvent) => boolean | undefined;

/** Largest event the parser buffers before it gives up on a runaway stream (characters). */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** Why an event stream could not be read to its end. */
export class SseFormatError extends Error {}

/**
 * Reads `body` as an event stream into `onEvent`. Resolves `true` when the handler declared the
 * stream complete (the rest is cancelled), `false` when the server simply ended it. `onChunk` runs
 * on every chunk that arrives with its size in bytes (the transport resets its idle timer and
 * counts the stream against its cap; what it throws ends the reading).
 */
export function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: SseHandler,
  hooks: { onChunk?: (bytes: number) => void } = {},
): Promise<boolean> {
  return readBodyEvents((onChunk) => readStream(body, onChunk), onEvent, hooks);
}

/**
 * `readEvents` over any body reader: `read` feeds the body's chunks to its callback (see
 * `WireReply.read`: returning `true` wants no more).
 */
export async function readBodyEvents(
  read: (onChunk: (chunk: Uint8Array) => boolean | undefined) => Promise<void>,
  onEvent: SseHandler,
  hooks: { onChunk?: (bytes: number) => void } = {},
): Promise<boolean> {
  const parser = new SseParser(onEvent, hooks.onChunk);
  await read(parser.push);
  return parser.end();
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

/**
 * The event-stream format (the WHATWG `text/event-stream` rules a client applies) over a body's
 * bytes: lines end in LF, CR or CRLF; `data:` lines join with `\n`; a blank line ends an event;
 * comments, `retry:` and unknown fields are ignored. Written for the one shape every model
 * provider sends (`data: {json}` and a blank line, whole events per chunk), which it reads with
 * one search per line and no copy of the chunk; anything else is read the slow way, correctly.
 */
class SseParser {
  /** Set once the handler declared the stream complete: nothing after it is read. */
  stopped = false;
  readonly #onEvent: SseHandler;
  readonly #onChunk: ((bytes: number) => void) | undefined;
  readonly #decoder = new StringDecoder("utf8");
  /** The start of a line whose end has not arrived yet, in pieces (joined only when it ends). */
  #pending: string[] = [];
  #pendingChars = 0;
  #data: string | undefined;
  #event: string | undefined;
  #id: string | undefined;
  #first = true;
  /** The last character fed, to tell a last event that lacks only its blank line. */
  #lastChar = 0;

  constructor(onEvent: SseHandler, onChunk: ((bytes: number) => void) | undefined) {
    this.#onEvent = onEvent;
    this.#onChunk = onChunk;
  }

  /** Takes one chunk of the body; `true` once no more is wanted. */
  push = (chunk: Uint8Array): boolean => {
    this.#onChunk?.(chunk.byteLength);
    this.#feed(this.#decoder.write(chunk));
    return this.stopped;
  };

  /** The body ended: whether the handler declared the stream complete. */
  end(): boolean {
    if (this.stopped) return true;
    this.#feed(this.#decoder.end());
    // Some servers end with a complete last line but no blank line after it ("data: [DONE]\n"):
    // that event is whole and is delivered. A last line without its newline was cut off, and an
    // event made of it is dropped, as the standard says.
    if (this.#lastChar === LF || this.#lastChar === CR) this.#feed("\n");
    return this.stopped;
  }

  #feed(chunk: string): void {
    if (chunk === "" || this.stopped) return;
    let text = chunk;
    if (this.#first) {
      this.#first = false;
      // A byte-order mark before the first line is no part of it.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.#lastChar = chunk.charCodeAt(chunk.length - 1);
    if (this.#pending.length > 0) {
      if (text.indexOf("\n") === -1 && text.indexOf("\r") === -1) {
        this.#hold(text);
        return;
      }
      this.#pending.push(text);
      text = this.#pending.join("");
      this.#pending = [];
      this.#pendingChars = 0;
    }
    const rest = text.indexOf("\r") === -1 ? this.#linesLF(text) : this.#linesAny(text);
    if (rest < text.length && !this.stopped) this.#hold(rest === 0 ? text : text.slice(rest));
    else this.#checkSize();
  }

  /** Keeps the start of an unfinished line; a runaway one ends the stream. */
  #hold(piece: string): void {
    this.#pending.push(piece);
    this.#pendingChars += piece.length;
    this.#checkSize();
  }

  #checkSize(): void {
    if (this.#pendingChars + (this.#data?.length ?? 0) > MAX_EVENT_CHARS)
      throw new SseFormatError(`an event was larger than ${MAX_EVENT_CHARS} characters`);
  }

  /** Reads the whole lines of a text with LF line ends only; returns where the unfinished rest starts. */
  #linesLF(text: string): number {
    let start = 0;
    for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
      this.#line(text, start, end);
      start = end + 1;
      if (this.stopped) break;
    }
    return start;
  }

  /** The same for a text with CR in it: LF, CR and CRLF all end a line. */
  #linesAny(text: string): number {
    let start = 0;
    while (start < text.length && !this.stopped) {
      const cr = text.indexOf("\r", start);
      const lf = text.indexOf("\n", start);
      let end: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        // A CR that ends the chunk may be the first half of a CRLF: wait for the next chunk.
        if (cr === text.length - 1) break;
        end = cr;
      } else if (lf !== -1) end = lf;
      else break;
      this.#line(text, start, end);
      start = end + 1;
      if (text.charCodeAt(end) === CR && text.charCodeAt(start) === LF) start++;
    }
    return start;
  }

  /** One line, `text[start, end)`, without its line end. */
  #line(text: string, start: number, end: number): void {
    if (start === end) {
      this.#dispatch();
      return;
    }
    const first = text.charCodeAt(start);
    if (first === COLON) return; // a comment (keep-alive)
    let colon = text.indexOf(":", start);
    if (colon === -1 || colon > end) colon = end;
    // The field's name is told in place (no string made for it: this runs on every line).
    const field = fieldOf(text, start, colon - start);
    // `retry:` (reconnection is not ours to do) and unknown fields are ignored, as the standard says.
    if (field === undefined) return;
    let from = colon + 1;
    if (from < end && text.charCodeAt(from) === SPACE) from++;
    const value = from >= end ? "" : text.slice(from, end);
    if (field === "data") this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    else if (field === "event") this.#event = value === "" ? undefined : value;
    else if (!value.includes("\0")) this.#id = value;
  }

  /** A blank line: the event so far, when it had data, goes to the handler. */
  #dispatch(): void {
    const data = this.#data;
    const event = this.#event;
    const id = this.#id;
    this.#data = undefined;
    this.#event = undefined;
    this.#id = undefined;
    if (data === undefined) return;
    if (this.#onEvent({ data, event, id }) === true) this.stopped = true;
  }
}

/** The field a line names (`text[start, start + length)`), when it is one the parser reads. */
function fieldOf(text: string, start: number, length: number): "data" | "event" | "id" | undefined {
  if (length === 4 && text.startsWith("data", start)) return "data";
  if (length === 5 && text.startsWith("event", start)) return "event";
  if (length === 2 && text.startsWith("id", start)) return "id";
  return undefined;
}
