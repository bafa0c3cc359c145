import type { Message, ModelRequest, ToolSpec } from "glassloop";
import { describe, expect, it } from "vitest";
import { toAnthropicBody } from "./request.js";

const weather: ToolSpec = {
  name: "get_weather",
  description: "Weather of a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
};

function request(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { messages, tools: [weather], signal: new AbortController().signal, ...extra };
}

const options = { model: "claude-sonnet-4-5", maxTokens: 4096 };

describe("toAnthropicBody", () => {
  it("puts instructions in top-level system and sends tools with input_schema", () => {
    const body = toAnthropicBody(
      request([{ role: "user", content: "Weather in Paris?" }], { instructions: "Be brief." }),
      options,
    );
    expect(body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      system: "Be brief.",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [{ name: "get_weather", description: "Weather of a city.", input_schema: weather.parameters }],
    });
  });

  it("groups all tool results of a turn into one user message, is_error only on errors", () => {
    const body = toAnthropicBody(
      request([
        { role: "user", content: "Paris and Rome?" },
        {
          role: "assistant",
          content: "Checking both.",
          toolCalls: [
            { id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
            { id: "toolu_2", name: "get_weather", arguments: '{"city":"Rome"}' },
          ],
        },
        { role: "tool", toolCallId: "toolu_1", toolName: "get_weather", content: "sunny" },
        {
          role: "tool",
          toolCallId: "toolu_2",
          toolName: "get_weather",
          content: "Tool get_weather timed out",
          isError: true,
        },
      ]),
      options,
    );
    expect(body.messages).toEqual([
      { role: "user", content: "Paris and Rome?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking both." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_2", name: "get_weather", input: { city: "Rome" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "sunny" },
          {
            type: "tool_result",
            tool_use_id: "toolu_2",
            content: "Tool get_weather timed out",
            is_error: true,
          },
        ],
      },
    ]);
  });

  it("merges a user message that follows tool results into the same turn, results first", () => {
    const body = toAnthropicBody(
      request([
        { role: "user", content: "a" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "get_weather", arguments: "{}" }] },
        { role: "tool", toolCallId: "c1", toolName: "get_weather", content: "ok" },
        { role: "user", content: "and now?" },
      ]),
      options,
    );
    expect(body.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "c1", content: "ok" },
        { type: "text", text: "and now?" },
      ],
    });
    // The assistant turn has no empty text block (Anthropic rejects those).
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "c1", name: "get_weather", input: {} }],
    });
  });

  it("maps every tool choice, and sends none without tools", () => {
    const choose = (toolChoice: ModelRequest["toolChoice"]) =>
      toAnthropicBody(request([{ role: "user", content: "x" }], { toolChoice }), options).tool_choice;
    expect(choose("auto")).toEqual({ type: "auto" });
    expect(choose("required")).toEqual({ type: "any" });
    expect(choose("none")).toEqual({ type: "none" });
    expect(choose({ name: "get_weather" })).toEqual({ type: "tool", name: "get_weather" });
    expect(choose(undefined)).toBeUndefined();
    const bare = toAnthropicBody(
      request([{ role: "user", content: "x" }], { tools: [], toolChoice: "required" }),
      options,
    );
    expect(bare.tools).toBeUndefined();
    expect(bare.tool_choice).toBeUndefined();
  });

  it("takes max_tokens from the request when set, else the default; passes temperature and stream", () => {
    const body = toAnthropicBody(
      request([{ role: "user", content: "x" }], { maxOutputTokens: 100, temperature: 0.2, stream: true }),
      options,
    );
    expect(body.max_tokens).toBe(100);
    expect(body.temperature).toBe(0.2);
    expect(body.stream).toBe(true);
  });

  it("keeps unparseable arguments from another provider visible as _raw_arguments", () => {
    const body = toAnthropicBody(
      request([
        { role: "user", content: "x" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "c1", name: "get_weather", arguments: "{city:" }],
        },
        {
          role: "tool",
          toolCallId: "c1",
          toolName: "get_weather",
          content: "not valid JSON",
          isError: true,
        },
      ]),
      options,
    );
    expect(body.messages[1]?.content).toEqual([
      { type: "tool_use", id: "c1", name: "get_weather", input: { _raw_arguments: "{city:" } },
    ]);
  });

  it("rewrites ids Anthropic would refuse and fills empty ones, consistently for call and result", () => {
    const body = toAnthropicBody(
      request([
        { role: "user", content: "x" },
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "", name: "get_weather", arguments: "{}" },
            { id: "fc.1:a", name: "get_weather", arguments: "{}" },
          ],
        },
        { role: "tool", toolCallId: "", toolName: "get_weather", content: "one" },
        { role: "tool", toolCallId: "fc.1:a", toolName: "get_weather", content: "two" },
      ]),
      options,
    );
    const uses = body.messages[1]?.content as { id: string }[];
    const results = body.messages[2]?.content as { tool_use_id: string; content: string }[];
    expect(uses.map((u) => u.id)).toEqual(["toolu_gl_1", "fc_1_a"]);
    expect(results.map((r) => [r.tool_use_id, r.content])).toEqual([
      ["toolu_gl_1", "one"],
      ["fc_1_a", "two"],
    ]);
  });

  it("joins system messages found inside a history to the system prompt", () => {
    const body = toAnthropicBody(
      request(
        [
          { role: "system", content: "Old rules." },
          { role: "user", content: "x" },
        ],
        { instructions: "New rules." },
      ),
      options,
    );
    expect(body.system).toBe("New rules.\n\nOld rules.");
    expect(body.messages).toEqual([{ role: "user", content: "x" }]);
  });
});

describe("thinking and tool turns another model made", () => {
  const thinking = { ...options, thinkingBudget: 2048 };
  const call = { id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' };
  const result: Message = { role: "tool", toolCallId: "toolu_1", toolName: "get_weather", content: "sunny" };
  const own: Message = {
    role: "assistant",
    content: "",
    toolCalls: [call],
    reasoning: [{ type: "reasoning", provider: "anthropic", text: "Let me check.", signature: "sig-1" }],
  };
  const foreign: Message = {
    role: "assistant",
    content: "",
    toolCalls: [call],
    reasoning: [{ type: "reasoning", provider: "google", text: "", signature: "g-sig" }],
  };
  const ask: Message = { role: "user", content: "Weather in Paris?" };

  it("keeps thinking on when Claude's own tool turn opens with its thinking block", () => {
    const body = toAnthropicBody(request([ask, own, result]), thinking);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
    expect(JSON.stringify(body.messages[1]?.content)).toMatch(/^\[\{"type":"thinking"/);
  });

  it("sends without thinking the request answering a tool turn another model made, as Anthropic requires", () => {
    const body = toAnthropicBody(request([ask, foreign, result], { temperature: 0.2 }), thinking);
    expect(body).not.toHaveProperty("thinking");
    // Without thinking, a temperature may travel again.
    expect(body.temperature).toBe(0.2);
    expect(JSON.stringify(body)).not.toContain("g-sig");
  });

  it("thinks again once the foreign turn is no longer the one being answered", () => {
    const body = toAnthropicBody(
      request([
        ask,
        foreign,
        result,
        { role: "assistant", content: "Sunny." },
        { role: "user", content: "And Rome?" },
      ]),
      thinking,
    );
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });
});
