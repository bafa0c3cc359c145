import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FLAT_CHARS, StreamedText } from "./streamed-text.js";

function built(pieces: readonly string[], segmentBytes?: number): StreamedText {
  const text = new StreamedText(segmentBytes === undefined ? {} : { segmentBytes });
  for (const piece of pieces) text.append(piece);
  return text;
}

/** Pieces of every kind: ASCII, Latin-1, CJK, emoji (a surrogate pair), lone surrogates. */
const piece = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("\ud83d", "\ude00", "😀", "é", "漢字", "\u0000"),
);

describe("StreamedText", () => {
  it("gives back exactly the pieces joined, whatever they hold and however they split", () => {
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.constantFrom(64, 4096, 1 << 20),
        (pieces, repeat, segmentBytes) => {
          // Repeated so the text passes FLAT_CHARS (and the small segments) many times over.
          const all = Array.from({ length: repeat }, () => pieces).flat();
          const text = built(all, segmentBytes);
          const expected = all.join("");
          expect(text.length).toBe(expected.length);
          expect(text.toString()).toBe(expected);
          expect(text.toString()).toBe(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps a surrogate pair split across the move off the heap together", () => {
    const before = "a".repeat(FLAT_CHARS - 1);
    const text = built([before, "\ud83d", "\ude00", "b"]);
    expect(text.toString()).toBe(`${before}😀b`);
  });

  it("keeps a lone surrogate (UTF-8 cannot carry it) and everything before and after it", () => {
    const long = "x".repeat(FLAT_CHARS * 3);
    const text = built([long, "\udc00", long, "\ud800", long, "é"], 4096);
    expect(text.toString()).toBe(`${long}\udc00${long}\ud800${long}é`);
  });

  it("ends with a lone high surrogate as it came", () => {
    const long = "y".repeat(FLAT_CHARS * 2);
    expect(built([long, "\ud800"]).toString()).toBe(`${long}\ud800`);
  });

  it("goes on after toString: the text read so far and the pieces after it", () => {
    const long = "z".repeat(FLAT_CHARS + 5);
    const text = built([long]);
    expect(text.toString()).toBe(long);
    text.append("tail");
    text.append(long);
    expect(text.length).toBe(long.length * 2 + 4);
    expect(text.toString()).toBe(`${long}tail${long}`);
  });

  it("is empty until something is appended", () => {
    const text = new StreamedText();
    expect(text.length).toBe(0);
    expect(text.toString()).toBe("");
  });
});
