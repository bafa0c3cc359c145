/**
 * The one redaction rule applied to text that arrives in pieces (a model's streamed answer or
 * tool arguments). Scrubbing each piece alone misses a secret split across two of them, so the
 * stream holds back the tail that could still become one: as much as the longest literal secret
 * minus one, and the last two words (every built-in credential shape is one word, or `Bearer` and
 * one word). Everything before that tail is final and leaves at once, so the stream stays
 * incremental, a couple of words behind the model. The secrets and shapes are the `Redactor`'s:
 * this only decides when a piece of text is safe to show.
 */
import { REDACTED, type Redactor } from "./redact.js";

/** Longest tail held back: a run without a word break longer than this leaves anyway. */
export const MAX_HELD_CHARS = 4_096;

/** Text already shown that is kept as the left context of what follows (`Bearer `, `?key=`). */
const CONTEXT_CHARS = 256;

/** Characters no built-in credential shape contains: where one word of a stream ends. */
function isBreak(char: string): boolean {
  return /[\s"'<>\\]/.test(char);
}

/** Where the last two words of `text` (and the breaks between them) begin. */
function lastWordsStart(text: string): number {
  let i = text.length;
  while (i > 0 && !isBreak(text[i - 1] as string)) i--;
  while (i > 0 && isBreak(text[i - 1] as string)) i--;
  while (i > 0 && !isBreak(text[i - 1] as string)) i--;
  return i;
}

/** Overlapping or touching ranges joined, in order. */
function merge(spans: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** `text[from, to)` with every secret range in it replaced. */
function render(text: string, from: number, to: number, spans: readonly [number, number][]): string {
  let out = "";
  let at = from;
  for (const [start, end] of spans) {
    if (end <= at || start >= to) continue;
    out += text.slice(at, Math.max(at, start)) + REDACTED;
    at = Math.min(end, to);
  }
  return out + text.slice(at, to);
}

/**
 * Scrubs one stream of text piece by piece: `push` returns what may be shown now (scrubbed, maybe
 * empty), `end` the scrubbed rest. Joined, the pieces hide every secret that scrubbing the whole
 * text at once hides.
 */
export class StreamRedactor {
  readonly #redactor: Redactor;
  readonly #maxHeld: number;
  /** Text shown already, unscrubbed, kept only as the left context of what follows. */
  #context = "";
  /** Text not shown yet, unscrubbed: a later piece could still make part of it a secret. */
  #held = "";

  constructor(redactor: Redactor, options: { maxHeld?: number } = {}) {
    this.#redactor = redactor;
    // A literal secret longer than the cap still fits whole in what is held.
    this.#maxHeld = Math.max(options.maxHeld ?? MAX_HELD_CHARS, 2 * redactor.longestSecret);
  }

  /** Adds a piece; returns the scrubbed text that no later piece can change. */
  push(piece: string): string {
    if (piece === "") return "";
    const text = this.#context + this.#held + piece;
    const from = this.#context.length;
    const literal = Math.max(0, this.#redactor.longestSecret - 1);
    const words = text.length - Math.max(from, lastWordsStart(text));
    const hold = Math.min(this.#maxHeld, text.length - from, Math.max(literal, words));
    let cut = text.length - hold;
    const spans = merge(this.#redactor.spans(text));
    // Never cut through a secret the text already holds whole: it leaves whole, scrubbed, or waits.
    for (const [start, end] of spans) if (start < cut && cut < end) cut = Math.max(from, start);
    const shown = render(text, from, cut, spans);
    this.#held = text.slice(cut);
    this.#context = text.slice(Math.max(0, cut - CONTEXT_CHARS), cut);
    return shown;
  }

  /** The stream ended: the held tail, scrubbed. */
  end(): string {
    const text = this.#context + this.#held;
    const shown = render(text, this.#context.length, text.length, merge(this.#redactor.spans(text)));
    this.#context = "";
    this.#held = "";
    return shown;
  }
}
