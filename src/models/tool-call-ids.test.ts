import fc from "fast-check";
import type { Message } from "glassloop";
import { describe, expect, it } from "vitest";
import { ANTHROPIC_TOOL_CALL_IDS, normalizeToolCallIds } from "./tool-call-ids.js";

const VALID = /^[a-zA-Z0-9_-]+$/;

/** Transcript turns: an assistant message with calls, then one result per call, in order. */
function transcript(idsPerTurn: string[][]): Message[] {
  const messages: Message[] = [{ role: "user", content: "go" }];
  idsPerTurn.forEach((ids, turn) => {
    messages.push({
      role: "assistant",
      content: "",
      toolCalls: ids.map((id, i) => ({ id, name: `t${turn}_${i}`, arguments: "{}" })),
    });
    ids.forEach((id, i) => {
      messages.push({ role: "tool", toolCallId: id, toolName: `t${turn}_${i}`, content: `r${turn}_${i}` });
    });
  });
  return messages;
}

/** (call name, result content) pairs as the wire ids pair them. */
function pairs(messages: Message[]): [string, string][] {
  const byId = new Map<string, string>();
  const out: [string, string][] = [];
  for (const m of messages) {
    if (m.role === "assistant") for (const c of m.toolCalls ?? []) byId.set(c.id, c.name);
    if (m.role === "tool") out.push([byId.get(m.toolCallId) ?? "?", m.content]);
  }
  return out;
}

describe("normalizeToolCallIds", () => {
  it("checks an id against its rules whole: a line break, a character outside the class or a flag on the class cannot slip through", () => {
    const multiline = { ...ANTHROPIC_TOOL_CALL_IDS, allowedChar: /[a-z]/gm };
    for (const rules of [ANTHROPIC_TOOL_CALL_IDS, multiline])
      for (const id of ["ab\ncd", "ab\n", "a b", "𝒳", "ab\u0000", "abc"]) {
        const kept = normalizeToolCallIds(transcript([[id]]), rules)[1];
        const valid = [...id].every((ch) => new RegExp(rules.allowedChar.source).test(ch));
        expect(kept?.role === "assistant" && kept.toolCalls?.[0]?.id === id).toBe(valid);
      }
  });

  it("keeps a transcript whose ids are already valid exactly as it is", () => {
    const messages = transcript([["call_abc", "toolu_01X-y"], ["c3"]]);
    expect(normalizeToolCallIds(messages, ANTHROPIC_TOOL_CALL_IDS)).toEqual(messages);
  });

  it("rewrites ids with characters Anthropic refuses, and the results follow their calls", () => {
    const messages = transcript([["call:1/a", "fc.2"]]);
    const out = normalizeToolCallIds(messages, ANTHROPIC_TOOL_CALL_IDS);
    const calls = out[1]?.role === "assistant" ? (out[1].toolCalls ?? []) : [];
    expect(calls.map((c) => c.id)).toEqual(["call_1_a", "fc_2"]);
    expect(out.filter((m) => m.role === "tool").map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(
      ["call_1_a", "fc_2"],
    );
  });

  it("replaces empty and repeated ids by fresh ones, pairing results in order", () => {
    const messages = transcript([["", ""], ["call_1_0"], ["call_1_0"]]);
    const out = normalizeToolCallIds(messages, ANTHROPIC_TOOL_CALL_IDS);
    expect(pairs(out)).toEqual([
      ["t0_0", "r0_0"],
      ["t0_1", "r0_1"],
      ["t1_0", "r1_0"],
      ["t2_0", "r2_0"],
    ]);
    const ids = out.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
    expect(new Set(ids).size).toBe(4);
    expect(ids[2]).toBe("call_1_0");
  });

  it("never lets a rewritten id take a name a valid id already has", () => {
    const out = normalizeToolCallIds(transcript([["a.b", "a_b"]]), ANTHROPIC_TOOL_CALL_IDS);
    const ids = out[1]?.role === "assistant" ? (out[1].toolCalls ?? []).map((c) => c.id) : [];
    expect(ids).toEqual(["a_b_2", "a_b"]);
  });

  it("for any ids: all valid and unique, pairs kept, valid unique ids untouched, same answer twice", () => {
    const id = fc.oneof(
      fc.constant(""),
      fc.constantFrom("call_1", "toolu_01", "dup"),
      fc.string({ maxLength: 80 }),
      fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/),
    );
    fc.assert(
      fc.property(fc.array(fc.array(id, { minLength: 1, maxLength: 4 }), { maxLength: 5 }), (turns) => {
        const messages = transcript(turns);
        const out = normalizeToolCallIds(messages, ANTHROPIC_TOOL_CALL_IDS);
        expect(normalizeToolCallIds(messages, ANTHROPIC_TOOL_CALL_IDS)).toEqual(out);
        const ids = out.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
        for (const x of ids) expect(x.length <= 64 && VALID.test(x)).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
        expect(pairs(out)).toEqual(
          turns.flatMap((t, turn) => t.map((_, i) => [`t${turn}_${i}`, `r${turn}_${i}`])),
        );
        const all = turns.flat();
        const original = all.filter(
          (x) => VALID.test(x) && x.length <= 64 && all.indexOf(x) === all.lastIndexOf(x),
        );
        for (const x of original) expect(ids).toContain(x);
      }),
    );
  });
});
