import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelRequest, ToolSpec } from "../../models/model.js";
import { tool } from "../../tools/tool.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { GEMINI_PLACEHOLDER_SIGNATURE, toGeminiBody, validatesSignatures } from "./request.js";

const request = (tools: ToolSpec[]): ModelRequest => ({
  messages: [{ role: "user", content: "hi" }],
  tools,
  signal: new AbortController().signal,
});
const declarations = (tools: ToolSpec[]) =>
  toGeminiBody(request(tools)).tools?.[0]?.functionDeclarations ?? [];

describe("Gemini function declarations", () => {
  const weather = tool({
    name: "weather",
    description: "The weather in a city.",
    input: z.object({ city: z.string() }),
    run: () => "sunny",
  });
  const time = tool({
    name: "time",
    description: "The time in a city.",
    input: z.object({ city: z.string(), utc: z.boolean().optional() }),
    run: () => "noon",
  });

  it("convert a tool's schema once for every step of a run, however often the specs are rebuilt", () => {
    const registry = new ToolRegistry();
    registry.register(weather);
    const first = declarations(registry.specs());
    const second = declarations(registry.specs());
    expect(second).toEqual(first);
    // The same converted object: the conversion ran once, not per call.
    expect(second[0]?.parameters).toBe(first[0]?.parameters);
    expect(first[0]?.parameters).toEqual({
      type: "OBJECT",
      properties: { city: { type: "STRING" } },
      required: ["city"],
    });
  });

  it("follow the tool list when it changes: a tool added or removed, a tool of the same name with another schema", () => {
    const registry = new ToolRegistry();
    registry.register(weather);
    const before = declarations(registry.specs());
    registry.register(time);
    const both = declarations(registry.specs());
    expect(both.map((d) => d.name)).toEqual(["weather", "time"]);
    expect(both[0]?.parameters).toBe(before[0]?.parameters);
    expect(both[1]?.parameters).toEqual({
      type: "OBJECT",
      properties: { city: { type: "STRING" }, utc: { type: "BOOLEAN" } },
      required: ["city"],
    });
    registry.unregister("weather");
    expect(declarations(registry.specs()).map((d) => d.name)).toEqual(["time"]);

    // Same name, new schema: the cache is keyed by the schema object, never by the name.
    const wider = tool({
      name: "weather",
      description: "The weather in a city, on a day.",
      input: z.object({ city: z.string(), day: z.string() }),
      run: () => "rain",
    });
    registry.register(wider);
    const replaced = declarations(registry.specs()).filter((d) => d.name === "weather");
    expect(replaced[0]).toMatchObject({
      name: "weather",
      description: "The weather in a city, on a day.",
      parameters: { properties: { city: { type: "STRING" }, day: { type: "STRING" } } },
    });
  });
});

describe("Gemini 3 placeholder signatures", () => {
  it("only Gemini 3 and later validate signatures, by plain name or Vertex path", () => {
    expect(
      [
        "gemini-3-pro-preview",
        "gemini-3.1-flash-lite",
        "publishers/google/models/gemini-3-flash",
        "gemini-10-x",
      ].map(validatesSignatures),
    ).toEqual([true, true, true, true]);
    expect(
      ["gemini-2.5-flash", "gemini-2.0-flash", "gemma-3-27b-it", "my-gemini"].map(validatesSignatures),
    ).toEqual([false, false, false, false]);
  });

  it("put on the first of several unsigned parallel calls, and never on a text part", () => {
    const body = toGeminiBody(
      {
        messages: [
          { role: "user", content: "q" },
          {
            role: "assistant",
            content: "Checking both.",
            toolCalls: [
              { id: "1", name: "a", arguments: "{}" },
              { id: "2", name: "b", arguments: '{"x":1}' },
            ],
          },
        ],
        tools: [],
        signal: new AbortController().signal,
      },
      { placeholderSignatures: true },
    );
    expect(body.contents[1]?.parts).toEqual([
      { text: "Checking both." },
      { functionCall: { id: "1", name: "a", args: {} }, thoughtSignature: GEMINI_PLACEHOLDER_SIGNATURE },
      { functionCall: { id: "2", name: "b", args: { x: 1 } } },
    ]);
  });
});
