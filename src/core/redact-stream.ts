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

const BREAK = /[\s"'<>\\]/;

/**
 * Characters no built-in credential shape contains: where one word of a stream ends. The ASCII
 * ones are told by their code (this runs over every held character); others by the pattern.
 */
function isBreak(code: number): boolean {
  if (code < 128)
    return (
      code === 32 ||
      (code >= 9 && code <= 13) ||
      code === 34 ||
      code === 39 ||
      code === 60 ||
      code === 62 ||
      code === 92
    );
  return BREAK.test(String.fromCharCode(code));
}

/**
 * Where the last two words of `text` (and the breaks between them) begin; the walk stops at
 * `floor` (a start before it would change nothing).
 */
function lastWordsStart(text: string, floor: number): number {
  let i = text.length;
  while (i > floor && !isBreak(text.charCodeAt(i - 1))) i--;
  while (i > floor && isBreak(text.charCodeAt(i - 1))) i--;
  while (i > floor && !isBreak(text.charCodeAt(i - 1))) i--;
  return i;
}

/** Overlapping or touching ranges joined, in order. */
function merge(spans: [number, number][]): [number, number][] {
  // Most scans find nothing (or one secret): nothing to sort or join, no copy.
  if (spans.length <= 1) return spans;
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

/** Where the text shown so far may end: the held tail begins at `cut`; `spans` are the secrets in `text`. */
function cutOf(
  redactor: Redactor,
  maxHeld: number,
  text: string,
  from: number,
): { cut: number; spans: [number, number][] } {
  const literal = Math.max(0, redactor.longestSecret - 1);
  // Held text never exceeds `maxHeld`: where the words start further back does not matter.
  const words = text.length - lastWordsStart(text, Math.max(from, text.length - maxHeld));
  const hold = Math.min(maxHeld, text.length - from, Math.max(literal, words));
  let cut = text.length - hold;
  const spans = merge(redactor.spans(text));
  // Never cut through a secret the text already holds whole: it leaves whole, scrubbed, or waits.
  for (const [start, end] of spans) if (start < cut && cut < end) cut = Math.max(from, start);
  return { cut, spans };
}

/** How much a stream may hold: a literal secret longer than the cap still fits whole. */
function maxHeldOf(redactor: Redactor, maxHeld: number | undefined): number {
  return Math.max(maxHeld ?? MAX_HELD_CHARS, 2 * redactor.longestSecret);
}

/**
 * Held text past which a piece may wait unscanned: a stream without word breaks keeps up to
 * `maxHeld` characters, and scanning all of it again for every small piece would cost that much
 * per piece. Past this length the text is scanned once the new text is at least half of what was
 * held (so every character is scanned about three times), and until then only held: more than
 * `maxHeld` by half at most. Ordinary prose holds a few words and is scanned on every piece.
 */
const LAZY_FROM = 256;

/** Whether a stream holding `held` characters, `fresh` of them not scanned yet, should wait for more. */
function waitForMore(held: number, fresh: number): boolean {
  return held > LAZY_FROM && fresh * 2 < held - fresh;
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
  /** How much of `#held` arrived since it was last scanned. */
  #fresh = 0;

  constructor(redactor: Redactor, options: { maxHeld?: number } = {}) {
    this.#redactor = redactor;
    this.#maxHeld = maxHeldOf(redactor, options.maxHeld);
  }

  /** Adds a piece; returns the scrubbed text that no later piece can change. */
  push(piece: string): string {
    if (piece === "") return "";
    this.#held += piece;
    this.#fresh += piece.length;
    if (waitForMore(this.#held.length, this.#fresh)) return "";
    this.#fresh = 0;
    const text = this.#context + this.#held;
    const from = this.#context.length;
    const { cut, spans } = cutOf(this.#redactor, this.#maxHeld, text, from);
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
    this.#fresh = 0;
    return shown;
  }
}

/**
 * The same rule for sinks that keep the pieces as they came (one trace line, one event row per
 * piece): a piece is held whole until all of its text is final, then leaves as its own part of
 * the scrubbed stream. A secret split across pieces is replaced once, in the piece where it
 * begins; the pieces after it lose their part of it (and may leave empty). Joined, what leaves is
 * exactly what `StreamRedactor` shows; piece for piece, it has the stream's own boundaries, so a
 * sink that numbers its records numbers them the same whatever the text.
 */
export class PieceRedactor {
  readonly #redactor: Redactor;
  readonly #maxHeld: number;
  #context = "";
  #held = "";
  /** The lengths of the held pieces, in order (their text is `#held`). */
  #pieces: number[] = [];
  #fresh = 0;

  constructor(redactor: Redactor, options: { maxHeld?: number } = {}) {
    this.#redactor = redactor;
    this.#maxHeld = maxHeldOf(redactor, options.maxHeld);
  }

  /** Adds a piece; returns, scrubbed and in order, the held pieces whose text is now final (maybe none). */
  push(piece: string): string[] {
    this.#pieces.push(piece.length);
    this.#held += piece;
    this.#fresh += piece.length;
    if (waitForMore(this.#held.length, this.#fresh)) return [];
    this.#fresh = 0;
    const text = this.#context + this.#held;
    const from = this.#context.length;
    const { cut: within, spans } = cutOf(this.#redactor, this.#maxHeld, text, from);
    // Only whole pieces leave: the cut moves back to the end of the last piece before it that is
    // not inside a secret (a secret's rest must stay with what follows to be recognised again).
    // (Walked with running sums and a plain loop: this runs on every scan of a stream.)
    const pieces = this.#pieces;
    let count = 0;
    let cut = from;
    let end = from;
    for (let i = 0; i < pieces.length; i++) {
      end += pieces[i] as number;
      if (end > within) break;
      if (!insideSpan(spans, end)) {
        count = i + 1;
        cut = end;
      }
    }
    // A piece of nothing right after them leaves with them: it has no text to wait for.
    while (count < pieces.length && pieces[count] === 0) count++;
    const out = this.#render(text, from, count, spans);
    this.#held = text.slice(cut);
    this.#context = text.slice(Math.max(0, cut - CONTEXT_CHARS), cut);
    return out;
  }

  /** The stream ended: every held piece, scrubbed. */
  end(): string[] {
    const text = this.#context + this.#held;
    const out = this.#render(
      text,
      this.#context.length,
      this.#pieces.length,
      merge(this.#redactor.spans(text)),
    );
    this.#context = "";
    this.#held = "";
    this.#fresh = 0;
    return out;
  }

  /** The first `count` held pieces (from `from` in `text`), each scrubbed, taken off the held list. */
  #render(text: string, from: number, count: number, spans: readonly [number, number][]): string[] {
    const out: string[] = [];
    let at = from;
    for (const length of this.#pieces.splice(0, count)) {
      out.push(renderOwn(text, at, at + length, spans, from));
      at += length;
    }
    return out;
  }
}

/** Whether `at` is strictly inside one of `spans`. */
function insideSpan(spans: readonly [number, number][], at: number): boolean {
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i] as [number, number];
    if (span[0] < at && at < span[1]) return true;
  }
  return false;
}

/**
 * `text[from, to)` with every secret range replaced, except that a range that began in an earlier
 * piece of the same batch (at or after `batchStart`) is only cut out: its `[REDACTED]` is there.
 */
function renderOwn(
  text: string,
  from: number,
  to: number,
  spans: readonly [number, number][],
  batchStart: number,
): string {
  let out = "";
  let at = from;
  for (const [start, end] of spans) {
    if (end <= at || start >= to) continue;
    const continued = start < from && start >= batchStart;
    out += text.slice(at, Math.max(at, start)) + (continued ? "" : REDACTED);
    at = Math.min(end, to);
  }
  return out + text.slice(at, to);
}
