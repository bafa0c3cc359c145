import type { Message } from "glassloop";
import { describe, expect, it } from "vitest";
import { LocalModelError } from "./errors.js";
import { mustCallTool, toChatHistory, toFunctions } from "./history.js";

const calc = (id: string, expression: string) => ({
  id,
  name: "calculator",
  arguments: JSON.stringify({ expression }),
});

describe("toChatHistory", () => {
  it("puts the instructions first and maps user and plain assistant turns", () => {
    const history = toChatHistory("Be brief.", [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "user", content: "bye" },
    ]);
    expect(history).toEqual([
      { type: "system", text: "Be brief." },
      { type: "user", text: "hi" },
      { type: "model", response: ["hello"] },
      { type: "user", text: "bye" },
    ]);
  });

  it("attaches each tool result to its call and continues the same model response after the results", () => {
    const messages: Message[] = [
      { role: "user", content: "6*7 and 2+2?" },
      { role: "assistant", content: "Let me compute.", toolCalls: [calc("a", "6*7"), calc("b", "2+2")] },
      { role: "tool", toolCallId: "b", toolName: "calculator", content: "4" },
      { role: "tool", toolCallId: "a", toolName: "calculator", content: "42" },
      { role: "assistant", content: "", toolCalls: [calc("c", "42+4")] },
      { role: "tool", toolCallId: "c", toolName: "calculator", content: "46" },
      { role: "assistant", content: "46 in total." },
    ];
    const history = toChatHistory(undefined, messages);
    expect(history).toHaveLength(2);
    expect(history[1]).toEqual({
      type: "model",
      response: [
        "Let me compute.",
        { type: "functionCall", name: "calculator", params: { expression: "6*7" }, result: "42" },
        { type: "functionCall", name: "calculator", params: { expression: "2+2" }, result: "4" },
        // the second assistant turn's call is a new batch, not a third parallel call
        {
          type: "functionCall",
          name: "calculator",
          params: { expression: "42+4" },
          result: "46",
          startsNewChunk: true,
        },
        "46 in total.",
      ],
    });
  });

  it("starts a new model turn when a user message follows the tool results", () => {
    const history = toChatHistory(undefined, [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [calc("a", "1+1")] },
      { role: "tool", toolCallId: "a", toolName: "calculator", content: "2" },
      { role: "user", content: "Now answer in words." },
      { role: "assistant", content: "two" },
    ]);
    expect(history.map((item) => item.type)).toEqual(["user", "model", "user", "model"]);
    expect(history[3]).toEqual({ type: "model", response: ["two"] });
  });

  it("marks failed results as errors and keeps unparsable arguments as their text", () => {
    const history = toChatHistory(undefined, [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [{ id: "x", name: "calculator", arguments: "{oops" }] },
      { role: "tool", toolCallId: "x", toolName: "calculator", content: "Invalid JSON", isError: true },
    ]);
    expect(history[1]).toEqual({
      type: "model",
      response: [
        { type: "functionCall", name: "calculator", params: "{oops", result: { error: "Invalid JSON" } },
      ],
    });
  });

  it("refuses a tool result whose call is not in the transcript", () => {
    const run = () =>
      toChatHistory(undefined, [
        { role: "user", content: "go" },
        { role: "tool", toolCallId: "ghost", toolName: "calculator", content: "1" },
      ]);
    expect(run).toThrow(LocalModelError);
    expect(run).toThrow(/ghost/);
  });

  it("fills a call that never got a result, so the rendered chat stays well formed", () => {
    const history = toChatHistory(undefined, [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [calc("a", "1")] },
    ]);
    expect(history[1]).toMatchObject({
      response: [{ result: { error: "no result was recorded for this call" } }],
    });
  });
});

describe("toFunctions", () => {
  const tools = [
    {
      name: "calculator",
      description: "Evaluates arithmetic.",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
    },
    { name: "clock", description: "Tells the time.", parameters: { type: "object", properties: {} } },
  ];

  it("offers every tool with a grammar schema by default", () => {
    expect(toFunctions({ tools })).toEqual({
      calculator: {
        description: "Evaluates arithmetic.",
        params: {
          type: "object",
          properties: { expression: { type: "string" } },
          additionalProperties: false,
        },
      },
      clock: {
        description: "Tells the time.",
        params: { type: "object", properties: {}, additionalProperties: false },
      },
    });
  });

  it("offers nothing for toolChoice none or no tools, and only the named tool for a named choice", () => {
    expect(toFunctions({ tools, toolChoice: "none" })).toBeUndefined();
    expect(toFunctions({ tools: [] })).toBeUndefined();
    expect(Object.keys(toFunctions({ tools, toolChoice: { name: "clock" } }) ?? {})).toEqual(["clock"]);
    expect(toFunctions({ tools, toolChoice: { name: "missing" } })).toBeUndefined();
  });

  it("requires a call only for required or named choices", () => {
    expect(mustCallTool({ toolChoice: "required" })).toBe(true);
    expect(mustCallTool({ toolChoice: { name: "clock" } })).toBe(true);
    expect(mustCallTool({ toolChoice: "auto" })).toBe(false);
    expect(mustCallTool({})).toBe(false);
  });
});
