import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ExtractedCall, extractToolCalls, formatToolCall } from "./extract.js";

const calls = (text: string, names: string[] = []) =>
  extractToolCalls(text, names).calls.map((c) =>
    c.kind === "call" ? { name: c.name, args: JSON.parse(c.arguments) } : { invalid: c.reason, name: c.name },
  );

describe("extractToolCalls", () => {
  it("reads a call in a json code fence and keeps the prose around it", () => {
    const out = extractToolCalls(
      'Let me add them.\n```json\n{"tool": "add", "arguments": {"a": 200, "b": 10}}\n```\nOne moment.',
    );
    expect(out.calls).toEqual([{ kind: "call", name: "add", arguments: '{"a":200,"b":10}' }]);
    expect(out.text).toBe("Let me add them.\n\nOne moment.");
  });

  it("reads a bare call surrounded by prose, and the {type: tool_call} shape", () => {
    expect(calls('Sure: {"tool":"add","arguments":{"a":1,"b":2}} and then I will see.')).toEqual([
      { name: "add", args: { a: 1, b: 2 } },
    ]);
    expect(calls('{"type": "tool_call", "name": "search_weather", "arguments": {"city": "北京"}}')).toEqual([
      { name: "search_weather", args: { city: "北京" } },
    ]);
  });

  it("reads several calls: separate blocks, a JSON array, <tool_call> tags", () => {
    const text = [
      '```json\n{"tool": "a", "arguments": {}}\n```',
      '[{"tool": "b", "arguments": {"x": 1}}, {"name": "c", "arguments": {"y": [1, {"z": "}"}]}}]',
      '<tool_call>\n{"name": "d", "arguments": {"q": "a \\"quoted\\" {brace"}}\n</tool_call>',
    ].join("\nthen\n");
    const out = extractToolCalls(text);
    expect(out.calls.map((c) => (c as ExtractedCall).name)).toEqual(["a", "b", "c", "d"]);
    expect(JSON.parse((out.calls[3] as ExtractedCall).arguments)).toEqual({ q: 'a "quoted" {brace' });
    expect(out.text).toBe("then\n\nthen");
  });

  it("accepts OpenAI's function shape and arguments sent as a JSON string", () => {
    expect(calls('{"function": {"name": "add", "arguments": "{\\"a\\": 1}"}}')).toEqual([
      { name: "add", args: { a: 1 } },
    ]);
  });

  it("counts an object naming an offered tool as a call even without arguments", () => {
    expect(calls('{"name": "get_time"}', ["get_time"])).toEqual([{ name: "get_time", args: {} }]);
    expect(calls('{"name": "Alice", "age": 3}', ["get_time"])).toEqual([]);
  });

  it("treats a plain answer, even one containing JSON data, as the final answer", () => {
    const text = 'The user is {"name": "Alice", "age": 3}. Sets look like {a, b}.';
    const out = extractToolCalls(text, ["add"]);
    expect(out.calls).toEqual([]);
    expect(out.text).toBe(text);
  });

  it("reports broken calls with the reason and name, without hiding the valid call after them", () => {
    const text =
      'First {"tool": "add", "arguments": {"a": 1, "b": 2,}} then {"tool": "mul", "arguments": {"a": 3}\n' +
      '```json\n{"tool": "sub", "arguments": {"a": 5}}\n```';
    const found = calls(text);
    expect(found).toEqual([
      { invalid: expect.stringMatching(/not valid/), name: "add" },
      { invalid: expect.stringMatching(/not closed/), name: "mul" },
      { name: "sub", args: { a: 5 } },
    ]);
  });

  it("reports an object that says tool but names none", () => {
    expect(calls('{"tool": 5, "arguments": {}}')).toEqual([
      { invalid: expect.stringMatching(/does not say which tool/), name: undefined },
    ]);
  });

  it("never throws, whatever the text, and what it returns is well formed", () => {
    const wellFormed = (text: string) => {
      const out = extractToolCalls(text, ["add"]);
      expect(out.text.length).toBeLessThanOrEqual(text.length);
      for (const c of out.calls) {
        if (c.kind === "call") expect(() => JSON.parse(c.arguments)).not.toThrow();
        else expect(text).toContain(c.raw);
      }
    };
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), wellFormed), { numRuns: 500 });
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            "{",
            "}",
            "[",
            "]",
            '"',
            "\\",
            ":",
            ",",
            '"tool"',
            '"name"',
            " ",
            "```",
            "\uD800",
            "1",
          ),
        ),
        (parts) => wellFormed(parts.join("")),
      ),
      { numRuns: 500 },
    );
  });

  it("gets through pathological text (100k unclosed braces, deep nesting) and still finds the call after it", () => {
    const call = '{"tool": "add", "arguments": {"a": 1}}';
    for (const junk of [
      '{"'.repeat(50_000),
      "[{".repeat(50_000),
      '{"a":'.repeat(20_000),
      '"{'.repeat(50_000),
    ]) {
      const out = extractToolCalls(`${junk}\n\n${call}`);
      expect(out.calls.filter((c) => c.kind === "call")).toEqual([
        { kind: "call", name: "add", arguments: '{"a":1}' },
      ]);
    }
  });

  it("finds every well-formed call embedded in random prose, in order", () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/);
    const args = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    const wrap = fc.constantFrom("bare", "pretty", "fence", "tag", "seed");
    // Prose may hold braces, quotes and fences, but never a call of its own.
    const prose = fc
      .string({
        maxLength: 40,
        unit: fc.constantFrom("a", " ", "\n", "{", "}", "[", "]", '"', ":", ",", "`", "x", "é"),
      })
      .filter((p) => !/"(?:tool|name|tool_name)"/.test(p));
    fc.assert(
      fc.property(fc.array(fc.tuple(prose, name, args, wrap), { maxLength: 4 }), prose, (parts, tail) => {
        let text = "";
        for (const [before, n, a, w] of parts) {
          const json =
            w === "seed"
              ? JSON.stringify({ type: "tool_call", name: n, arguments: a })
              : formatToolCall(n, JSON.stringify(a));
          const body = w === "pretty" ? JSON.stringify(JSON.parse(json), null, 2) : json;
          text +=
            before +
            (w === "fence"
              ? `\n\`\`\`json\n${body}\n\`\`\`\n`
              : w === "tag"
                ? `<tool_call>${body}</tool_call>`
                : ` ${body} `);
        }
        text += tail;
        const out = extractToolCalls(text);
        const got = out.calls.filter((c): c is ExtractedCall => c.kind === "call");
        expect(got.map((c) => [c.name, JSON.parse(c.arguments)])).toEqual(
          parts.map(([, n, a]) => [n, JSON.parse(JSON.stringify(a))]),
        );
      }),
      { numRuns: 400 },
    );
  });
});
