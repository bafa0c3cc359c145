import { describe, expect, it } from "vitest";
import { fragments, secretCases } from "../../test/helpers/secret-shapes.js";
import { Redactor } from "./redact.js";
import { StreamRedactor } from "./redact-stream.js";

const LITERAL = "Zq9:hidden phrase-77";
const redactor = new Redactor({ env: {}, secrets: [LITERAL] });

/** Streams `pieces` and returns what was shown after each piece, then at the end. */
function stream(pieces: readonly string[], maxHeld?: number): string[] {
  const s = new StreamRedactor(redactor, maxHeld === undefined ? {} : { maxHeld });
  return [...pieces.map((p) => s.push(p)), s.end()];
}

const CASES = secretCases(LITERAL, "a literal secret (with a space inside)");

describe("secrets split across streamed pieces", () => {
  for (const { name, secret, hidden } of CASES) {
    it(`${name} is hidden wherever the stream splits it`, () => {
      const text = `Here it is: ${secret} and then the rest of the answer.`;
      const whole = redactor.text(text);
      expect(whole).not.toContain(secret);
      for (let at = 1; at < text.length; at++) {
        const out = stream([text.slice(0, at), text.slice(at)]);
        // What was shown, joined, is the whole text scrubbed at once: nothing of the secret.
        expect(out.join(""), `split at ${at}`).toBe(whole);
        const leaked = fragments(hidden).filter((f) => out.some((piece) => piece.includes(f)));
        expect(leaked, `split at ${at}`).toEqual([]);
      }
    });
  }

  it("a secret split into three pieces, one character in the middle, is hidden", () => {
    const text = `a ${LITERAL} b`;
    for (let at = 2; at < text.length - 2; at++) {
      const out = stream([text.slice(0, at), text.slice(at, at + 1), text.slice(at + 1)]);
      expect(out.join("")).toBe("a [REDACTED] b");
    }
  });

  it("a stream of one word per piece is shown as it comes, a few words behind", () => {
    const words = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen".split(
      " ",
    );
    const s = new StreamRedactor(redactor);
    const shown: string[] = [];
    for (const word of words) shown.push(s.push(`${word} `));
    // The held tail is the longest secret minus one (19 characters) or two words, whichever is longer.
    expect(shown.slice(0, 3).join("")).toBe("");
    expect(shown.join("").length).toBeGreaterThan(40);
    expect(shown.join("") + s.end()).toBe(`${words.join(" ")} `);
    // No piece was held longer than it had to be: everything up to the last 19 characters left.
    const text = `${words.join(" ")} `;
    expect(text.length - shown.join("").length).toBeLessThanOrEqual(LITERAL.length - 1 + "fourteen ".length);
  });

  it("tool arguments (JSON, no spaces) stream by JSON token", () => {
    const s = new StreamRedactor(new Redactor({ env: {} }));
    const pieces = ['{"path":"', "notes/a.md", '","content":"', "line one", " line two", '"}'];
    const shown = pieces.map((p) => s.push(p));
    expect(shown.slice(0, 4).join("")).toContain('{"path":"');
    expect(shown.join("") + s.end()).toBe(pieces.join(""));
  });

  it("holds at most maxHeld characters, so memory stays bounded", () => {
    const s = new StreamRedactor(redactor, { maxHeld: 64 });
    let shown = 0;
    for (let i = 0; i < 100; i++) shown += s.push("x".repeat(50)).length;
    expect(5_000 - shown).toBeLessThanOrEqual(64);
    expect(shown + s.end().length).toBe(5_000);
  });
});

describe("a stream without word breaks", () => {
  /** A redactor that counts the characters it scans. */
  class Counting extends Redactor {
    scanned = 0;
    override spans(value: string): [number, number][] {
      this.scanned += value.length;
      return super.spans(value);
    }
  }

  it("is scanned a few times over, not once per piece, and still hides a key inside it", () => {
    const key = "sk-proj-A1b2C3d4E5f6G7h8";
    const text = `${"x".repeat(20_000)}=${key}=${"y".repeat(20_000)}`;
    for (const size of [3, 10, 100]) {
      const counting = new Counting({ env: {} });
      const s = new StreamRedactor(counting);
      let shown = "";
      for (let i = 0; i < text.length; i += size) shown += s.push(text.slice(i, i + size));
      shown += s.end();
      expect(shown, `pieces of ${size}`).toBe(counting.text(text));
      expect(shown).not.toContain("A1b2");
      // Context and the held tail are scanned again with each batch; a piece alone never is.
      expect(counting.scanned / text.length, `pieces of ${size}`).toBeLessThan(5);
    }
  });
});
