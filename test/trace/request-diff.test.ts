import { describeEntry, diffRequests } from "glassloop/trace";
import { describe, expect, it } from "vitest";

const sys = { role: "system", content: "Be brief." };
const user = { role: "user", content: "Add 2 and 3" };
const call = {
  role: "assistant",
  content: "",
  tool_calls: [{ id: "c1", function: { name: "add", arguments: '{"a":2,"b":3}' } }],
};
const result = { role: "tool", tool_call_id: "c1", content: "5" };

describe("diffRequests", () => {
  it("reports the messages a step appended, and the fields that stayed the same", () => {
    const before = { model: "gpt-x", messages: [sys, user], tools: [{ name: "add" }], temperature: 0 };
    const after = { ...before, messages: [sys, user, call, result] };
    const diff = diffRequests(before, after);
    expect(diff.identical).toBe(false);
    expect(diff.entries).toEqual([
      { kind: "added", path: "messages[2]", value: call },
      { kind: "added", path: "messages[3]", value: result },
    ]);
    expect(diff.unchanged).toEqual(["model", "tools", "temperature"]);
    expect(diff.entries.map(describeEntry)).toEqual([
      "+ messages[2] (assistant: 1 tool call(s))",
      "+ messages[3] (tool: 5)",
    ]);
  });

  it("finds an edit in place deep inside a message (a changed system prompt)", () => {
    const before = { messages: [sys, user] };
    const after = { messages: [{ ...sys, content: "Be verbose." }, user] };
    expect(diffRequests(before, after).entries).toEqual([
      { kind: "changed", path: "messages[0].content", before: "Be brief.", after: "Be verbose." },
    ]);
  });

  it("reports trimmed history as removed items, not as every later message changed", () => {
    const m = (n: number) => ({ role: "user", content: `m${n}` });
    const before = { messages: [sys, m(1), m(2), m(3), m(4)] };
    const after = { messages: [sys, m(3), m(4), m(5)] };
    expect(diffRequests(before, after).entries).toEqual([
      { kind: "removed", path: "messages[1]", value: m(1) },
      { kind: "removed", path: "messages[2]", value: m(2) },
      { kind: "added", path: "messages[3]", value: m(5) },
    ]);
  });

  it("reports added and removed top-level fields, and quotes odd keys", () => {
    const diff = diffRequests({ a: 1, "x-y": 2 }, { a: 1, tool_choice: "auto" });
    expect(diff.entries).toEqual([
      { kind: "removed", path: '"x-y"', value: 2 },
      { kind: "added", path: "tool_choice", value: "auto" },
    ]);
  });

  it("says identical for equal bodies whatever their key order", () => {
    expect(diffRequests({ a: 1, b: [1, { c: 2, d: 3 }] }, { b: [1, { d: 3, c: 2 }], a: 1 }).identical).toBe(
      true,
    );
  });
});
