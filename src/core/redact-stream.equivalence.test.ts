/**
 * The per-delta stream scrubbing the trace does, against the code it had before it was made to
 * allocate less (the old `PieceRedactor`, copied below as it was, with `matchAll` for its matches):
 * on random streams with secrets split at random points, every piece comes out the same, piece for
 * piece, and `collectMatches` finds what `matchAll` finds.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectMatches } from "./pattern-matches.js";
import { REDACTED, Redactor } from "./redact.js";
import { MAX_HELD_CHARS as NEW_MAX_HELD, PieceRedactor } from "./redact-stream.js";

const MAX_HELD_CHARS = NEW_MAX_HELD;
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
  const out: [number, number][] = [];
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
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
 * The same rule for sinks that keep the pieces as they came (one trace line, one event row per
 * piece): a piece is held whole until all of its text is final, then leaves as its own part of
 * the scrubbed stream. A secret split across pieces is replaced once, in the piece where it
 * begins; the pieces after it lose their part of it (and may leave empty). Joined, what leaves is
 * exactly what `StreamRedactor` shows; piece for piece, it has the stream's own boundaries, so a
 * sink that numbers its records numbers them the same whatever the text.
 */
class OldPieceRedactor {
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
    const ends: number[] = [];
    let at = from;
    for (const length of this.#pieces) {
      at += length;
      ends.push(at);
    }
    let count = 0;
    for (let i = 0; i < ends.length && (ends[i] as number) <= within; i++) {
      const end = ends[i] as number;
      if (!spans.some(([start, stop]) => start < end && end < stop)) count = i + 1;
    }
    // A piece of nothing right after them leaves with them: it has no text to wait for.
    while (count < this.#pieces.length && this.#pieces[count] === 0) count++;
    const cut = count === 0 ? from : (ends[count - 1] as number);
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

/** The old `Redactor.spans`: every literal secret, then `matchAll` of every pattern. */
function oldSpans(
  value: string,
  secrets: readonly string[],
  patterns: readonly RegExp[],
): [number, number][] {
  const found: [number, number][] = [];
  for (const secret of secrets)
    for (let at = value.indexOf(secret); at !== -1; at = value.indexOf(secret, at + 1))
      found.push([at, at + secret.length]);
  for (const pattern of patterns)
    for (const match of value.matchAll(pattern)) found.push([match.index, match.index + match[0].length]);
  return found;
}

const LITERAL = "Zq9:hidden phrase-77";
const SHAPES = [
  LITERAL,
  "sk-proj-A1b2C3d4E5f6G7h8",
  "Bearer tok3n.Value-9abc",
  "https://bob:pa55word-x@db.test/",
  "https://api.test/v1?api-key=k3y-value-999",
  "AKIAABCDEFGHIJKLMNOP",
  "ghp_abcdefghijklmnop1234",
];
const FILLER = ["a", "aaaa", " ", "word ", "\n", '"', "é", "😀", "Bearer ", "?key=", "://", "@", "-", ""];

/** A stream: filler and secrets joined, cut into pieces at random points. */
const streams = fc
  .tuple(
    fc.array(fc.oneof(fc.constantFrom(...SHAPES), fc.constantFrom(...FILLER), fc.string({ maxLength: 30 })), {
      maxLength: 60,
    }),
    fc.array(fc.nat(), { maxLength: 80 }),
  )
  .map(([parts, cuts]) => {
    const text = parts.join("");
    const at = [...new Set(cuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1))))].sort(
      (a, b) => a - b,
    );
    const pieces: string[] = [];
    let from = 0;
    for (const cut of at) {
      pieces.push(text.slice(from, cut));
      from = cut;
    }
    pieces.push(text.slice(from));
    return pieces;
  });

function run(
  redact: { push(piece: string): string[]; end(): string[] },
  pieces: readonly string[],
): string[][] {
  return [...pieces.map((p) => redact.push(p)), redact.end()];
}

describe("the trace's per-delta scrubbing, against the code before it allocated less", () => {
  it("every piece of every stream comes out the same", () => {
    for (const maxHeld of [undefined, 64]) {
      const redactor = new Redactor({ env: {}, secrets: [LITERAL] });
      const options = maxHeld === undefined ? {} : { maxHeld };
      fc.assert(
        fc.property(streams, (pieces) => {
          const now = run(new PieceRedactor(redactor, options), pieces);
          const before = run(new OldPieceRedactor(redactor, options), pieces);
          expect(now).toEqual(before);
        }),
        { numRuns: 300 },
      );
    }
  });

  it("a long stream without word breaks, a secret inside, comes out the same", () => {
    const redactor = new Redactor({ env: {}, secrets: [LITERAL] });
    fc.assert(
      fc.property(fc.nat({ max: 9_000 }), fc.integer({ min: 1, max: 300 }), (at, size) => {
        const text = `${"a".repeat(at)}${LITERAL}sk-${"b".repeat(40)}${"a".repeat(3_000)}`;
        const pieces: string[] = [];
        for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
        expect(run(new PieceRedactor(redactor), pieces)).toEqual(run(new OldPieceRedactor(redactor), pieces));
      }),
      { numRuns: 40 },
    );
  });

  it("collectMatches finds what matchAll finds, empty matches and code points included", () => {
    const patterns = [
      /(?<=\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
      /a*/g,
      /(?:)/gu,
      /\p{Emoji}?/gu,
      /(?<=x)y*/g,
      /\bsk-[A-Za-z0-9_-]{12,}/g,
    ];
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.constantFrom(...SHAPES, ...FILLER, "x", "yy", "\ud83d"), fc.string({ maxLength: 10 })),
          {
            maxLength: 20,
          },
        ),
        (parts) => {
          const text = parts.join("");
          for (const pattern of patterns) {
            const found: [number, number][] = [];
            collectMatches(pattern, text, found);
            expect(found).toEqual(oldSpans(text, [], [pattern]));
            expect(pattern.lastIndex).toBe(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
