import { describe, expect, it } from "vitest";
import { REDACTED } from "./redact.js";
import { LINE_SLICE_CHARS, redactingJsonSink, redactingSink, scrubberFor } from "./sink.js";

const KEY = "sk-proj-sink-test-0123456789abcdef";
const ENV = { OPENAI_API_KEY: KEY, DATABASE_URL: "postgres://app:hunter2-db-pass@db/x" };

describe("a sink made with redactingSink", () => {
  it("a new sink's writer never sees a secret, with no scrubbing code of its own", () => {
    // The fake sink: it keeps whatever it is given, as a careless new output channel would.
    const kept: unknown[] = [];
    const sink = redactingSink("fake", scrubberFor(ENV), (clean: unknown) => {
      kept.push(clean);
    });
    sink.write(`the key is ${KEY}`);
    sink.write({
      messages: [{ role: "assistant", content: `echo ${KEY} and the db password hunter2-db-pass` }],
      arguments: JSON.stringify({ key: KEY }),
      headers: { authorization: "Bearer anything-at-all-here" },
      undeclared: "a key nobody declared: sk-ant-abcdefghijklmnopqrstuvwxyz",
      usage: { inputTokens: 12 },
    });
    const text = JSON.stringify(kept);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("hunter2-db-pass");
    expect(text).not.toContain("anything-at-all-here");
    expect(text).not.toContain("sk-ant-abcdefghijklmnopqrstuvwxyz");
    expect(kept[0]).toBe(`the key is ${REDACTED}`);
    // Same shape, numbers untouched: a scrubbed value is still the value.
    expect((kept[1] as { usage: unknown }).usage).toEqual({ inputTokens: 12 });
  });

  it("the caller's value is not changed: the writer gets a scrubbed copy", () => {
    const value = { text: KEY };
    redactingSink("fake", scrubberFor(ENV), () => {}).write(value);
    expect(value.text).toBe(KEY);
  });

  it("a JSON sink scrubs while it serializes, and its writer gets the line", () => {
    const sink = redactingJsonSink("fake json", scrubberFor(ENV), (json) => json);
    expect(JSON.parse(sink.write({ a: `x ${KEY}` }))).toEqual({ a: `x ${REDACTED}` });
  });

  it("one scrubber per environment, and extra secrets on request", () => {
    expect(scrubberFor(ENV)).toBe(scrubberFor(ENV));
    const extra = scrubberFor(ENV, { secrets: ["my-own-secret-value"] });
    expect(extra.text(`my-own-secret-value and ${KEY}`)).toBe(`${REDACTED} and ${REDACTED}`);
  });

  it("a slicing JSON sink writes a long text in scrubbed slices; joined, the line is stringify's", () => {
    const around = (at: number) => `${"a".repeat(at - 10)}${KEY}${"b".repeat(LINE_SLICE_CHARS)} 😀 end`;
    for (const at of [LINE_SLICE_CHARS - 5, LINE_SLICE_CHARS, 2 * LINE_SLICE_CHARS - 1]) {
      const value = {
        type: "model_response",
        text: around(at),
        // A pair of surrogates exactly on a slice's edge stays one character.
        emoji: `${"c".repeat(LINE_SLICE_CHARS - 1)}😀${"d".repeat(10)}`,
        headers: { authorization: "x".repeat(LINE_SLICE_CHARS + 1) },
        small: `key ${KEY}`,
      };
      const pieces: string[] = [];
      let lasts = 0;
      redactingJsonSink(
        "fake lines",
        scrubberFor(ENV),
        (piece, last) => {
          pieces.push(piece);
          lasts += last ? 1 : 0;
        },
        { sliceLongText: true },
      ).write(value);
      expect(lasts).toBe(1);
      const line = pieces.join("");
      expect(JSON.parse(line)).toEqual(JSON.parse(scrubberFor(ENV).stringify(value)));
      expect(line).not.toContain(KEY.slice(4, 14));
      // No piece holds a long text whole.
      expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(LINE_SLICE_CHARS + 5_000);
    }
  });
});
