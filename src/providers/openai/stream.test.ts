import { ContextOverflowError, type ModelDelta, ProviderError } from "glassloop";
import { ProviderProtocolError, StreamIncompleteError } from "glassloop/models";
import { describe, expect, it } from "vitest";
import { COMPATIBLE_QUIRKS, OPENAI_QUIRKS, type OpenAIQuirks } from "./quirks.js";
import { ChatStreamAssembler } from "./stream.js";

function assemble(chunks: (object | string)[], quirks: OpenAIQuirks = OPENAI_QUIRKS, done = true) {
  const deltas: ModelDelta[] = [];
  const assembler = new ChatStreamAssembler("test", quirks, {
    onRequest: () => {},
    onDelta: (d) => deltas.push(d),
  });
  for (const c of chunks) if (assembler.push(typeof c === "string" ? c : JSON.stringify(c))) break;
  if (done) assembler.push("[DONE]");
  return { response: assembler.finish(), deltas };
}

const delta = (d: object, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const call = (index: number | undefined, fields: { id?: string; name?: string; args?: unknown }) =>
  delta({
    tool_calls: [
      {
        ...(index !== undefined && { index }),
        ...(fields.id !== undefined && { id: fields.id, type: "function" }),
        function: {
          ...(fields.name !== undefined && { name: fields.name }),
          ...(fields.args !== undefined && { arguments: fields.args }),
        },
      },
    ],
  });

describe("ChatStreamAssembler", () => {
  it("assembles parallel calls interleaved by index, in index order", () => {
    const { response, deltas } = assemble([
      call(1, { id: "call_b", name: "second", args: "" }),
      call(0, { id: "call_a", name: "first", args: '{"x"' }),
      call(1, { args: '{"y":2}' }),
      call(0, { args: ":1}" }),
      delta({}, "tool_calls"),
      {
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 8 } },
      },
    ]);
    expect(response.toolCalls).toEqual([
      { id: "call_a", name: "first", arguments: '{"x":1}' },
      { id: "call_b", name: "second", arguments: '{"y":2}' },
    ]);
    expect(response.finishReason).toBe("tool_calls");
    expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 4, cachedInputTokens: 8 });
    expect(deltas[0]).toEqual({
      type: "tool_call",
      index: 1,
      id: "call_b",
      name: "second",
      argumentsDelta: "",
    });
    expect(
      deltas
        .filter((d) => d.type === "tool_call" && d.index === 0)
        .map((d) => (d as { argumentsDelta: string }).argumentsDelta),
    ).toEqual(['{"x"', ":1}"]);
  });

  it("copes with servers that omit the index, repeat ids and names, or send arguments as objects", () => {
    const { response } = assemble([
      call(undefined, { id: "a", name: "one", args: '{"k":' }),
      call(undefined, { id: "a", name: "one", args: "1}" }),
      call(undefined, { id: "b", name: "two", args: { z: true } }),
      delta({}, "tool_calls"),
    ]);
    expect(response.toolCalls).toEqual([
      { id: "a", name: "one", arguments: '{"k":1}' },
      { id: "b", name: "two", arguments: '{"z":true}' },
    ]);
  });

  it("fills empty and repeated ids when the quirk says so, and only then", () => {
    const chunks = [
      call(0, { id: "", name: "a", args: "{}" }),
      call(1, { id: "dup", name: "b", args: "{}" }),
      call(2, { id: "dup", name: "c", args: "{}" }),
    ];
    const filled = assemble(chunks, COMPATIBLE_QUIRKS).response.toolCalls.map((c) => c.id);
    expect(filled[0]).toMatch(/^call_[0-9a-f]{24}$/);
    expect(filled[1]).toBe("dup");
    expect(filled[2]).toMatch(/^call_[0-9a-f]{24}$/);
    expect(assemble(chunks).response.toolCalls.map((c) => c.id)).toEqual(["", "dup", "dup"]);
  });

  it("reports text deltas and reads usage from the finish chunk (Groq) or a trailing one (OpenAI)", () => {
    const { response, deltas } = assemble([
      delta({ role: "assistant", content: "" }),
      delta({ content: "Hi" }),
      delta({ content: " there" }),
      { ...delta({}, "stop"), usage: { prompt_tokens: 3, completion_tokens: 2 } },
    ]);
    expect(response.text).toBe("Hi there");
    expect(deltas).toEqual([
      { type: "text", text: "Hi" },
      { type: "text", text: " there" },
    ]);
    expect(response.usage).toEqual({ inputTokens: 3, outputTokens: 2 });
    expect(response.raw).toMatchObject({
      choices: [{ message: { content: "Hi there" }, finish_reason: "stop" }],
    });
  });

  it("streams reasoning_content as reasoning deltas and one reasoning part", () => {
    const { response, deltas } = assemble([
      delta({ role: "assistant", reasoning_content: "Two " }),
      delta({ reasoning_content: "plus two." }),
      delta({ content: "4" }, "stop"),
    ]);
    expect(deltas).toEqual([
      { type: "reasoning", text: "Two " },
      { type: "reasoning", text: "plus two." },
      { type: "text", text: "4" },
    ]);
    expect(response.text).toBe("4");
    expect(response.reasoning).toEqual([{ type: "reasoning", provider: "test", text: "Two plus two." }]);
  });

  it("keeps a refusal as the answer's text", () => {
    const { response } = assemble([
      delta({ refusal: "I can't " }),
      delta({ refusal: "help with that." }, "stop"),
    ]);
    expect(response.text).toBe("I can't help with that.");
  });

  it("an error inside the stream is a typed error (overflow recognized)", () => {
    const overflow = {
      error: {
        message: "This model's maximum context length is 8192 tokens",
        code: "context_length_exceeded",
      },
    };
    expect(() => assemble([delta({ content: "x" }), overflow])).toThrow(ContextOverflowError);
    expect(() => assemble([{ error: { message: "Internal error", type: "server_error" } }])).toThrow(
      ProviderError,
    );
  });

  it("Groq's in-stream tool_use_failed becomes the failed call with the quirk, an error without it", () => {
    const failed = {
      error: {
        message: "Tool call validation failed",
        type: "invalid_request_error",
        code: "tool_use_failed",
        failed_generation: '{"name": "lookup", "arguments": {"q": 1}}',
        status_code: 400,
      },
    };
    const { response } = assemble(
      [delta({ content: "" }), failed],
      { ...COMPATIBLE_QUIRKS, recoverToolUseFailed: true },
      false,
    );
    expect(response.toolCalls).toEqual([
      { id: expect.stringMatching(/^call_/), name: "lookup", arguments: '{"q":1}' },
    ]);
    expect(response.finishReason).toBe("tool_calls");
    expect(() => assemble([failed], COMPATIBLE_QUIRKS, false)).toThrow(
      expect.objectContaining({ status: 400, code: "provider_error" }),
    );
    const unreadable = { error: { ...failed.error, failed_generation: "I will call lookup now" } };
    expect(() => assemble([unreadable], { ...COMPATIBLE_QUIRKS, recoverToolUseFailed: true }, false)).toThrow(
      ProviderError,
    );
  });

  it("a chunk that is not JSON is a protocol error; a stream without [DONE] is incomplete", () => {
    expect(() => assemble(['{"choices": ['])).toThrow(ProviderProtocolError);
    expect(() => assemble(["42"])).toThrow(ProviderProtocolError);
    expect(() => assemble([delta({ content: "half" })], OPENAI_QUIRKS, false)).toThrow(StreamIncompleteError);
  });
});
