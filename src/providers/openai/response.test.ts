import { ContextOverflowError, ProviderError } from "glassloop";
import { ProviderProtocolError } from "glassloop/models";
import { describe, expect, it } from "vitest";
import { COMPATIBLE_QUIRKS, OPENAI_QUIRKS } from "./quirks.js";
import { failedToolCall } from "./recover.js";
import { finishReasonOf, parseChatCompletion, usageOf } from "./response.js";

const body = (message: object, extra: object = {}) => ({
  model: "m-1",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
  ...extra,
});

describe("parseChatCompletion", () => {
  it("reads text, tool calls, usage and the model name", () => {
    const response = parseChatCompletion(
      body(
        {
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "a", arguments: '{"x":1}' } },
            { id: "call_2", type: "function", function: { name: "b", arguments: { y: 2 } } },
          ],
        },
        { usage: { prompt_tokens: 100, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 64 } } },
      ),
      "test",
      OPENAI_QUIRKS,
    );
    expect(response).toMatchObject({
      text: "",
      toolCalls: [
        { id: "call_1", name: "a", arguments: '{"x":1}' },
        { id: "call_2", name: "b", arguments: '{"y":2}' },
      ],
      usage: { inputTokens: 100, outputTokens: 7, cachedInputTokens: 64 },
      modelName: "m-1",
    });
  });

  it("fills a missing id only under the quirk", () => {
    const noId = body({ tool_calls: [{ type: "function", function: { name: "a", arguments: "{}" } }] });
    expect(parseChatCompletion(noId, "t", OPENAI_QUIRKS).toolCalls[0]?.id).toBe("");
    expect(parseChatCompletion(noId, "t", COMPATIBLE_QUIRKS).toolCalls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
  });

  it("turns an error body sent with 200 into a typed error, and a shapeless body into a protocol error", () => {
    expect(() => parseChatCompletion({ error: { message: "overloaded" } }, "t", OPENAI_QUIRKS)).toThrow(
      ProviderError,
    );
    expect(() =>
      parseChatCompletion({ error: { message: "prompt is too long: 300000 tokens" } }, "t", OPENAI_QUIRKS),
    ).toThrow(ContextOverflowError);
    for (const bad of [null, [], "text", { choices: [] }, { choices: [{ index: 0 }] }])
      expect(() => parseChatCompletion(bad, "t", OPENAI_QUIRKS)).toThrow(ProviderProtocolError);
  });
});

describe("reasoning of compatible servers", () => {
  it("reads DeepSeek's reasoning_content and OpenRouter's reasoning into a part labelled with the provider", () => {
    const deepseek = parseChatCompletion(
      body(
        { content: "4", reasoning_content: "2+2 is 4." },
        {
          usage: {
            prompt_tokens: 5,
            completion_tokens: 9,
            completion_tokens_details: { reasoning_tokens: 6 },
          },
        },
      ),
      "deepseek",
      COMPATIBLE_QUIRKS,
    );
    expect(deepseek.reasoning).toEqual([{ type: "reasoning", provider: "deepseek", text: "2+2 is 4." }]);
    expect(deepseek.usage).toEqual({ inputTokens: 5, outputTokens: 9, reasoningTokens: 6 });
    const openrouter = parseChatCompletion(
      body({ content: "4", reasoning: "Adding." }),
      "openrouter",
      OPENAI_QUIRKS,
    );
    expect(openrouter.reasoning).toEqual([{ type: "reasoning", provider: "openrouter", text: "Adding." }]);
    expect(parseChatCompletion(body({ content: "4" }), "openai", OPENAI_QUIRKS)).not.toHaveProperty(
      "reasoning",
    );
  });
});

describe("usage and finish reasons", () => {
  it("normalizes cached tokens (OpenAI's field, DeepSeek's); more cached than input is a protocol error", () => {
    expect(
      usageOf({ prompt_tokens: 10, completion_tokens: 1, prompt_cache_hit_tokens: 4 }, "deepseek"),
    ).toEqual({
      inputTokens: 10,
      outputTokens: 1,
      cachedInputTokens: 4,
    });
    expect(() =>
      usageOf({ prompt_tokens: 3, prompt_tokens_details: { cached_tokens: 9 } }, "openai"),
    ).toThrow(/openai reported impossible usage \(cached 9 \+ cache writes 0 of 3 input tokens\)/);
    expect(usageOf(null, "openai")).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("maps finish reasons", () => {
    expect(finishReasonOf("stop", false)).toBe("stop");
    expect(finishReasonOf("length", false)).toBe("length");
    expect(finishReasonOf("function_call", true)).toBe("tool_calls");
    expect(finishReasonOf("content_filter", false)).toBe("content_filter");
    expect(finishReasonOf(null, true)).toBe("tool_calls");
    expect(finishReasonOf(undefined, false)).toBe("other");
    expect(finishReasonOf("eos", false)).toBe("other");
  });

  it("reads the failed call of a tool_use_failed body, or nothing", () => {
    const body = (generation: unknown) => ({
      error: { code: "tool_use_failed", failed_generation: generation },
    });
    expect(failedToolCall(body('{"name":"f","arguments":{"a":1}}'))).toMatchObject({
      name: "f",
      arguments: '{"a":1}',
    });
    expect(failedToolCall(body('[{"name":"f","arguments":{}}]'))).toMatchObject({
      name: "f",
      arguments: "{}",
    });
    expect(failedToolCall(body("not json"))).toBeUndefined();
    expect(failedToolCall(body('{"arguments":{}}'))).toBeUndefined();
    expect(failedToolCall({ error: { code: "other" } })).toBeUndefined();
  });
});
