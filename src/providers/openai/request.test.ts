import type { Message, ModelRequest } from "glassloop";
import { describe, expect, it } from "vitest";
import { COMPATIBLE_QUIRKS, OPENAI_QUIRKS } from "./quirks.js";
import { toChatBody } from "./request.js";

const signal = new AbortController().signal;

function req(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { messages: [{ role: "user", content: "hi" }], tools: [], signal, ...overrides };
}

describe("toChatBody", () => {
  it("maps every role: system from instructions, assistant tool calls, tool results by id", () => {
    const messages: Message[] = [
      { role: "user", content: "Add 2 and 3" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call_a", name: "add", arguments: '{"a":2,"b":3}' },
          { id: "call_b", name: "add", arguments: '{"a":1,"b":1}' },
        ],
      },
      { role: "tool", toolCallId: "call_a", toolName: "add", content: "5" },
      { role: "tool", toolCallId: "call_b", toolName: "add", content: "oops", isError: true },
      {
        role: "assistant",
        content: "Let me check.",
        toolCalls: [{ id: "call_c", name: "add", arguments: "{}" }],
      },
      { role: "tool", toolCallId: "call_c", toolName: "add", content: "0" },
      { role: "assistant", content: "5 and 2." },
    ];
    const body = toChatBody(
      req({ instructions: "Be exact.", messages }),
      { model: "gpt-4o-mini" },
      OPENAI_QUIRKS,
    );
    expect(body).toEqual({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "Be exact." },
        { role: "user", content: "Add 2 and 3" },
        {
          role: "assistant",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } },
            { id: "call_b", type: "function", function: { name: "add", arguments: '{"a":1,"b":1}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "5" },
        { role: "tool", tool_call_id: "call_b", content: "oops" },
        {
          role: "assistant",
          content: "Let me check.",
          tool_calls: [{ id: "call_c", type: "function", function: { name: "add", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "call_c", content: "0" },
        { role: "assistant", content: "5 and 2." },
      ],
    });
  });

  it("maps tools, tool choice, parallel calls, temperature and the max-tokens field of the quirks", () => {
    const tools = [{ name: "add", description: "Adds.", parameters: { type: "object", properties: {} } }];
    const body = toChatBody(
      req({ tools, toolChoice: { name: "add" }, maxOutputTokens: 100, temperature: 0.2 }),
      { model: "m", parallelToolCalls: false },
      OPENAI_QUIRKS,
    );
    expect(body).toMatchObject({
      tools: [
        {
          type: "function",
          function: { name: "add", description: "Adds.", parameters: tools[0]?.parameters },
        },
      ],
      tool_choice: { type: "function", function: { name: "add" } },
      parallel_tool_calls: false,
      max_completion_tokens: 100,
      temperature: 0.2,
    });
    expect(body).not.toHaveProperty("max_tokens");
    expect(toChatBody(req({ maxOutputTokens: 7 }), { model: "m" }, COMPATIBLE_QUIRKS)).toMatchObject({
      max_tokens: 7,
    });
    for (const choice of ["auto", "required", "none"] as const)
      expect(toChatBody(req({ tools, toolChoice: choice }), { model: "m" }, OPENAI_QUIRKS).tool_choice).toBe(
        choice,
      );
  });

  it("sends no tool fields without tools (servers reject tool_choice alone)", () => {
    const body = toChatBody(
      req({ toolChoice: "required" }),
      { model: "m", parallelToolCalls: true },
      OPENAI_QUIRKS,
    );
    expect(Object.keys(body).sort()).toEqual(["messages", "model"]);
  });

  it("asks for usage in streams unless the quirks say the server rejects stream_options", () => {
    expect(toChatBody(req({ stream: true }), { model: "m" }, OPENAI_QUIRKS)).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
    const plain = toChatBody(req({ stream: true }), { model: "m" }, { ...OPENAI_QUIRKS, streamUsage: false });
    expect(plain.stream).toBe(true);
    expect(plain).not.toHaveProperty("stream_options");
    expect(toChatBody(req(), { model: "m" }, OPENAI_QUIRKS)).not.toHaveProperty("stream");
  });

  it("normalizes foreign tool-call ids consistently: empty, too long, odd characters, repeated", () => {
    const long = `toolu_${"x".repeat(60)}`;
    const messages: Message[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "", name: "a", arguments: "{}" },
          { id: long, name: "b", arguments: "{}" },
          { id: "id with spaces/and slashes", name: "c", arguments: "{}" },
        ],
      },
      { role: "tool", toolCallId: "", toolName: "a", content: "1" },
      { role: "tool", toolCallId: long, toolName: "b", content: "2" },
      { role: "tool", toolCallId: "id with spaces/and slashes", toolName: "c", content: "3" },
      { role: "assistant", content: "", toolCalls: [{ id: "", name: "a", arguments: "{}" }] },
      { role: "tool", toolCallId: "", toolName: "a", content: "4" },
    ];
    const body = toChatBody(req({ messages }), { model: "m" }, OPENAI_QUIRKS);
    const calls = body.messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
    const results = body.messages.flatMap((m) => (m.role === "tool" ? [m] : []));
    const ids = calls.map((c) => c.id);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_.:-]{1,40}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Each result still follows its own call.
    expect(results.map((r) => r.tool_call_id)).toEqual(ids);
    expect(results.map((r) => r.content)).toEqual(["1", "2", "3", "4"]);
    // The same transcript always gets the same ids, so every request of a run agrees.
    expect(toChatBody(req({ messages }), { model: "m" }, OPENAI_QUIRKS)).toEqual(body);
    // The caller's transcript is untouched.
    expect(messages[1]).toMatchObject({
      toolCalls: [{ id: "" }, { id: long }, { id: "id with spaces/and slashes" }],
    });
  });
});
