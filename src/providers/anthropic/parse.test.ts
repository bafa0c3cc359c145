import type { ModelDelta } from "glassloop";
import { describe, expect, it } from "vitest";
import { captureEvents, captureJson } from "../../../test/helpers/anthropic-captures.js";
import { ProviderProtocolError } from "../../models/errors.js";
import { fromAnthropicMessage, toTokenUsage } from "./response.js";
import { AnthropicStreamAssembler, AnthropicStreamErrorEvent } from "./stream.js";

function assemble(events: unknown[]) {
  const deltas: ModelDelta[] = [];
  const assembler = new AnthropicStreamAssembler((d) => deltas.push(d));
  for (const e of events) assembler.push(e);
  return { response: assembler.finish(), deltas };
}

const parsedArgs = (r: { toolCalls: { arguments: string }[] }) =>
  r.toolCalls.map((c) => JSON.parse(c.arguments));

describe("Anthropic response parsing (captured bodies)", () => {
  it("reads text, stop reason, model and usage of a plain answer", () => {
    const r = fromAnthropicMessage(captureJson("anthropic--anthropic-text"));
    expect(r.text).toBe(
      "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
    );
    expect(r.toolCalls).toEqual([]);
    expect(r.finishReason).toBe("stop");
    expect(r.modelName).toBe("claude-sonnet-4-5-20250929");
    expect(r.usage).toEqual({ inputTokens: 12, outputTokens: 29 });
  });

  it("reads a tool call with its id and arguments", () => {
    const r = fromAnthropicMessage(captureJson("anthropic--anthropic-json-tool.1"));
    expect(r.toolCalls.map((c) => [c.id, c.name])).toEqual([["toolu_01Q9ExVZnzZj7E2QQYHYtNUa", "json"]]);
    expect(parsedArgs(r)[0].elements).toHaveLength(4);
    expect(r.finishReason).toBe("tool_calls");
    expect(r.usage).toEqual({ inputTokens: 1151, outputTokens: 87 });
  });

  it("reads text before a call without arguments as {}", () => {
    const r = fromAnthropicMessage(captureJson("anthropic--anthropic-tool-no-args"));
    expect(r.text).toMatch(/^<thinking>/);
    expect(r.toolCalls).toEqual([
      { id: "toolu_01LRmxn9vGM1d2DZSDBowdZ1", name: "updateIssueList", arguments: "{}" },
    ]);
  });

  it("counts cache reads and writes as input, the reads also as cached, the writes also as written", () => {
    expect(
      toTokenUsage({
        input_tokens: 10,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 200,
        output_tokens: 5,
      }),
    ).toEqual({ inputTokens: 1210, outputTokens: 5, cachedInputTokens: 1000, cacheWriteInputTokens: 200 });
  });

  it("rejects a body that is not a message with a typed error", () => {
    expect(() => fromAnthropicMessage({ hello: 1 })).toThrow(ProviderProtocolError);
    expect(() => fromAnthropicMessage("<html>")).toThrow(ProviderProtocolError);
  });
});

describe("Anthropic stream assembly (captured events)", () => {
  it("assembles text deltas in order and takes the final usage from message_delta", () => {
    const { response, deltas } = assemble(captureEvents("anthropic--anthropic-text"));
    expect(response.text).toBe(
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
    );
    expect(deltas.map((d) => (d.type === "text" ? d.text : "")).join("")).toBe(response.text);
    expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 30 });
    expect(response.finishReason).toBe("stop");
  });

  it("assembles input_json_delta pieces into one call, reported as tool_call deltas", () => {
    const { response, deltas } = assemble(captureEvents("anthropic--anthropic-json-tool.2"));
    expect(response.text).toBe("I'll invoke the JSON response tool.");
    expect(response.toolCalls.map((c) => [c.id, c.name])).toEqual([
      ["toolu_01KFbKqPYSuAKujiL6mTfzYA", "json"],
    ]);
    expect(parsedArgs(response)).toEqual([
      { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
    ]);
    const toolDeltas = deltas.filter((d) => d.type === "tool_call");
    expect(toolDeltas[0]).toEqual({
      type: "tool_call",
      index: 0,
      id: "toolu_01KFbKqPYSuAKujiL6mTfzYA",
      name: "json",
      argumentsDelta: "",
    });
    expect(toolDeltas.map((d) => (d.type === "tool_call" ? d.argumentsDelta : "")).join("")).toBe(
      response.toolCalls[0]?.arguments,
    );
    expect(response.usage).toEqual({ inputTokens: 849, outputTokens: 47 });
  });

  it("gives a call whose input never streamed the arguments {}", () => {
    const { response } = assemble(captureEvents("anthropic--anthropic-tool-no-args"));
    expect(response.toolCalls).toEqual([
      { id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: "{}" },
    ]);
  });

  it("survives a duplicated message_start frame (same message id)", () => {
    const { response } = assemble(captureEvents("anthropic--duplicate-message-start"));
    expect(response.text).toBe("Hello, World!");
    expect(response.usage).toEqual({ inputTokens: 17, outputTokens: 227 });
  });

  it("reports two generations spliced into one stream as a typed error, naming both ids", () => {
    expect(() => assemble(captureEvents("anthropic--spliced-message-start"))).toThrowError(
      expect.objectContaining({
        code: "provider_protocol",
        message: expect.stringMatching(/msg_second.*msg_first.*spliced/),
      }),
    );
  });

  it("reports a stream cut before message_stop, and one that never started", () => {
    const events = captureEvents("anthropic--anthropic-text");
    const cut = new AnthropicStreamAssembler();
    for (const e of events.slice(0, 5)) cut.push(e);
    expect(() => cut.finish()).toThrow(/before message_stop/);
    expect(() => new AnthropicStreamAssembler().finish()).toThrow(/before message_start/);
  });

  it("turns an error event into AnthropicStreamErrorEvent with Anthropic's error type", () => {
    const a = new AnthropicStreamAssembler();
    a.push(captureEvents("anthropic--anthropic-text")[0]);
    const error = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
    expect(() => a.push(error)).toThrow(AnthropicStreamErrorEvent);
  });

  it("rejects deltas for blocks that were never started", () => {
    const a = new AnthropicStreamAssembler();
    a.push(captureEvents("anthropic--anthropic-text")[0]);
    expect(() =>
      a.push({ type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "x" } }),
    ).toThrow(ProviderProtocolError);
  });
});
