/**
 * Each credential shape's test (`mayMatch`) is only a shortcut: it must pass every text its
 * pattern matches in, or a secret would reach a sink unscrubbed. Held to its pattern on random
 * texts built from the pieces the patterns look for, and the redactor's output held to the same
 * patterns run without any test.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BUILTIN_SHAPES } from "./credential-shapes.js";
import { collectMatches } from "./pattern-matches.js";
import { REDACTED, Redactor } from "./redact.js";

/** Pieces of credential shapes and of the text around them, in any case. */
const PIECES = [
  "Bearer ",
  "bearer\t",
  "BEARER\n",
  "Bearer",
  "https://",
  "ftp://",
  "://",
  "user:pw@",
  "@",
  "?api_key=",
  "&TOKEN=",
  ";sig=",
  "=",
  "?",
  "sk-",
  "AIza",
  "AKIA",
  "ghp_",
  "github_pat-",
  "r8_",
  "_",
  "-",
  " ",
  ".",
  "abcdefgh",
  "ABCDEFGHIJKLMNOP",
  "0123456789",
  "é",
  "x",
];
const texts = fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }).map((parts) => parts.join(""));

/** What the patterns find in `text` with no test in front of them. */
function matchesOf(pattern: RegExp, text: string): [number, number][] {
  const found: [number, number][] = [];
  collectMatches(pattern, text, found);
  return found;
}

/** The redactor's scrub as it was before the tests: every pattern, in order, on the running text. */
function scrubAll(text: string): string {
  let out = text;
  for (const { pattern } of BUILTIN_SHAPES) out = out.replace(pattern, REDACTED);
  return out;
}

describe("credential shapes: a shape's test passes every text its pattern matches in", () => {
  it("holds on random texts made of the patterns' pieces", () => {
    fc.assert(
      fc.property(texts, (text) => {
        for (const { pattern, mayMatch } of BUILTIN_SHAPES)
          if (matchesOf(pattern, text).length > 0)
            expect(mayMatch(text), `${pattern} in ${JSON.stringify(text)}`).toBe(true);
      }),
      { numRuns: 3_000 },
    );
  });

  it("holds on one real example of each shape, and a text without the needed piece is skipped", () => {
    const examples = [
      "key sk-abcdefghijklmnop here",
      "AIzaSyA1234567890abcdefghijklmnopqrstu",
      "token ghp_ABCDEFGHIJKLMNOPqrst",
      "AKIAABCDEFGHIJKLMNOP",
      "Authorization: Bearer abcdefgh1234",
      "postgres://admin:hunter22@db/x",
      "https://x.test/v1?api-key=abcdef123",
    ];
    for (const [i, { pattern, mayMatch }] of BUILTIN_SHAPES.entries()) {
      const example = examples[i] as string;
      expect(matchesOf(pattern, example).length, example).toBeGreaterThan(0);
      expect(mayMatch(example)).toBe(true);
    }
    // The look-behind shapes on a long run of letters: the text has none of what they need.
    const letters = "a".repeat(4_096);
    expect(BUILTIN_SHAPES.filter((s) => s.mayMatch(letters)).length).toBe(3);
  });

  it("leaves the redactor's output and spans as the patterns alone give them", () => {
    const redactor = new Redactor({ env: {} });
    fc.assert(
      fc.property(texts, (text) => {
        expect(redactor.text(text)).toBe(scrubAll(text));
        const spans = BUILTIN_SHAPES.flatMap(({ pattern }) => matchesOf(pattern, text));
        expect(redactor.spans(text)).toEqual(spans);
      }),
      { numRuns: 3_000 },
    );
  });
});
