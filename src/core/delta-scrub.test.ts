import { describe, expect, it } from "vitest";
import { fragments, secretCases } from "../../test/helpers/secret-shapes.js";
import { DeltaScrubber } from "./delta-scrub.js";
import { Redactor } from "./redact.js";
import { PieceRedactor } from "./redact-stream.js";
import type { AgentEvent } from "./vocabulary/events.js";

const LITERAL = "Zq9:hidden phrase-77";
const redactor = new Redactor({ env: {}, secrets: [LITERAL] });

const CASES = secretCases(LITERAL, "a literal secret (with a space inside)");

const delta = (text: string, runId = "r1", step = 1): AgentEvent => ({
  type: "text_delta",
  runId,
  time: 0,
  step,
  text,
});
const end = (runId = "r1"): AgentEvent => ({ type: "step_end", runId, time: 0, step: 1 }) as AgentEvent;

/** What a sink would write for `events`, in order. */
function written(events: readonly AgentEvent[]): AgentEvent[] {
  const scrubber = new DeltaScrubber(redactor);
  const out: AgentEvent[] = [];
  for (const event of events) scrubber.push(event, (e) => out.push(e));
  scrubber.end((e) => out.push(e));
  return out;
}

const textOf = (events: readonly AgentEvent[]) =>
  events.map((e) =>
    e.type === "text_delta" ? e.text : e.type === "tool_call_delta" ? e.argumentsDelta : "",
  );

describe("streamed deltas scrubbed as one stream", () => {
  for (const { name, secret, hidden } of CASES) {
    it(`${name} split across two deltas is hidden at every split position, one event per delta`, () => {
      const text = `Here it is: ${secret} and then the rest of the answer.`;
      const whole = redactor.text(text);
      for (let at = 1; at < text.length; at++) {
        const out = written([delta(text.slice(0, at)), delta(text.slice(at)), end()]);
        expect(
          out.map((e) => e.type),
          `split at ${at}`,
        ).toEqual(["text_delta", "text_delta", "step_end"]);
        const pieces = textOf(out);
        expect(pieces.join(""), `split at ${at}`).toBe(whole);
        const leaked = fragments(hidden).filter((f) => pieces.some((piece) => piece.includes(f)));
        expect(leaked, `split at ${at}`).toEqual([]);
      }
    });
  }

  it("a secret in three deltas, one character in the middle, is hidden", () => {
    const text = `a ${LITERAL} b`;
    for (let at = 2; at < text.length - 2; at++) {
      const out = written([
        delta(text.slice(0, at)),
        delta(text.slice(at, at + 1)),
        delta(text.slice(at + 1)),
      ]);
      expect(out).toHaveLength(3);
      expect(textOf(out).join("")).toBe("a [REDACTED] b");
    }
  });

  it("tool arguments split across deltas are hidden, and the id and name stay on their delta", () => {
    const args = `{"token":"x","note":"sk-proj-A1b2C3d4E5f6G7h8"}`;
    for (let at = 1; at < args.length; at++) {
      const out = written([
        {
          type: "tool_call_delta",
          runId: "r1",
          time: 0,
          step: 1,
          index: 0,
          toolCallId: "c1",
          toolName: "f",
          argumentsDelta: "",
        },
        {
          type: "tool_call_delta",
          runId: "r1",
          time: 0,
          step: 1,
          index: 0,
          argumentsDelta: args.slice(0, at),
        },
        { type: "tool_call_delta", runId: "r1", time: 0, step: 1, index: 0, argumentsDelta: args.slice(at) },
      ]);
      expect(out).toHaveLength(3);
      expect(out[0]).toMatchObject({ toolCallId: "c1", toolName: "f", argumentsDelta: "" });
      expect(textOf(out).join("")).toBe(redactor.text(args));
      expect(textOf(out).join("")).not.toContain("A1b2");
    }
  });

  it("another event of the run lets out what the stream holds first; other runs' streams wait", () => {
    const out = written([delta("alpha beta gamma", "r1"), delta("one two three", "r2"), end("r1")]);
    expect(out.map((e) => `${e.runId}:${e.type}`)).toEqual(["r1:text_delta", "r1:step_end", "r2:text_delta"]);
  });

  it("a long stream leaves as it comes, a few pieces behind, never reordered", () => {
    const words = Array.from({ length: 200 }, (_, i) => `word${i} `);
    const scrubber = new DeltaScrubber(redactor);
    const out: string[] = [];
    let mostHeld = 0;
    words.forEach((w, i) => {
      scrubber.push(delta(w), (e) => out.push((e as { text: string }).text));
      mostHeld = Math.max(mostHeld, i + 1 - out.length);
    });
    scrubber.end((e) => out.push((e as { text: string }).text));
    expect(out).toEqual(words);
    expect(mostHeld).toBeLessThanOrEqual(4);
  });

  it("the pieces joined are what StreamRedactor's rule shows, for pieces of every size", () => {
    const text = `x ${LITERAL} y Bearer abcdefgh12345 z sk-proj-A1b2C3d4E5f6G7h8 end`;
    for (const size of [1, 2, 3, 5, 7, 11]) {
      const s = new PieceRedactor(redactor);
      const out: string[] = [];
      const sizes: number[] = [];
      for (let i = 0; i < text.length; i += size) {
        sizes.push(text.slice(i, i + size).length);
        out.push(...s.push(text.slice(i, i + size)));
      }
      out.push(...s.end());
      expect(out).toHaveLength(sizes.length);
      expect(out.join(""), `pieces of ${size}`).toBe(redactor.text(text));
    }
  });
});

describe("pieces of a stream without word breaks", () => {
  it("leave in order, whole, a key inside them hidden, and the text is scanned a few times over", () => {
    let scanned = 0;
    const counting = new (class extends Redactor {
      override spans(value: string): [number, number][] {
        scanned += value.length;
        return super.spans(value);
      }
    })({ env: {} });
    const text = `${"x".repeat(20_000)}=sk-proj-A1b2C3d4E5f6G7h8=${"y".repeat(20_000)}`;
    const s = new PieceRedactor(counting);
    const out: string[] = [];
    let pieces = 0;
    for (let i = 0; i < text.length; i += 100, pieces++) out.push(...s.push(text.slice(i, i + 100)));
    out.push(...s.end());
    expect(out).toHaveLength(pieces);
    expect(out.join("")).toBe(counting.text(text));
    expect(out.join("")).not.toContain("A1b2");
    expect(scanned / text.length).toBeLessThan(5);
  });
});
