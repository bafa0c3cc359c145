/**
 * Every OpenAI-family capture (vercel-ai: openai--, groq--, deepseek--, openai-compatible--) replayed
 * through a local server, streaming and not, and parsed into the text, tool calls and usage the
 * provider really sent. Streams re-chunked at random byte boundaries give identical results.
 */
import fc from "fast-check";
import type { ModelDelta, ModelRequest, ModelResponse } from "glassloop";
import { OpenAIChatModel, type OpenAIPresetName, presetModel } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { readEvents } from "../../src/models/http/sse.js";
import { ChatStreamAssembler } from "../../src/providers/openai/stream.js";
import { openaiCaptureJson, openaiCaptureSse } from "../helpers/openai-captures.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

interface Expected {
  text: string | ((text: string) => void);
  calls: { id: string; name: string; args: unknown }[];
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens?: number; reasoningTokens?: number };
  finishReason: ModelResponse["finishReason"];
  modelName?: string;
}

type Case = { capture: string; preset: OpenAIPresetName | "compatible"; expected: Expected };

const holiday = (text: string) => {
  expect(text.startsWith("**Holiday Name:**")).toBe(true);
  expect(text.length).toBeGreaterThan(1000);
};

const streams: Case[] = [
  {
    capture: "openai--openai-text",
    preset: "openai",
    expected: {
      text: (text) => {
        holiday(text);
        expect(text.endsWith("human experiences and mutual respect.")).toBe(true);
      },
      calls: [],
      usage: { inputTokens: 16, outputTokens: 300 },
      finishReason: "stop",
      modelName: "gpt-4.1-nano-2025-04-14",
    },
  },
  {
    capture: "deepseek--deepseek-tool-call",
    preset: "deepseek",
    expected: {
      text: "",
      calls: [
        { id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF", name: "weather", args: { location: "San Francisco" } },
      ],
      usage: { inputTokens: 339, outputTokens: 83, cachedInputTokens: 320, reasoningTokens: 39 },
      finishReason: "tool_calls",
      modelName: "deepseek-reasoner",
    },
  },
  {
    capture: "groq--groq-tool-call",
    preset: "groq",
    expected: {
      text: "",
      calls: [{ id: "tk85n1k4m", name: "weather", args: {} }],
      usage: { inputTokens: 210, outputTokens: 15 },
      finishReason: "tool_calls",
      modelName: "llama-3.3-70b-versatile",
    },
  },
  {
    capture: "openai-compatible--xai-tool-call",
    preset: "compatible",
    expected: {
      text: "",
      calls: [{ id: "call_79382389", name: "weather", args: { location: "San Francisco" } }],
      usage: { inputTokens: 307, outputTokens: 253, cachedInputTokens: 306, reasoningTokens: 227 },
      finishReason: "tool_calls",
      modelName: "grok-3-mini",
    },
  },
  {
    capture: "openai-compatible--anthropic-fallback-tool-call",
    preset: "compatible",
    expected: {
      text: "Reading it.",
      calls: [{ id: "toolu_sanitized", name: "read_file", args: { path: "a.txt" } }],
      usage: { inputTokens: 0, outputTokens: 0 },
      finishReason: "tool_calls",
      modelName: "claude-haiku-4-5-20251001",
    },
  },
];

const bodies: Case[] = [
  {
    capture: "openai--openai-text",
    preset: "openai",
    expected: {
      text: (text) => {
        holiday(text);
        expect(text).toContain("Galaxy Day fosters a sense of unity");
      },
      calls: [],
      usage: { inputTokens: 16, outputTokens: 363 },
      finishReason: "stop",
      modelName: "gpt-4.1-nano-2025-04-14",
    },
  },
  {
    capture: "deepseek--deepseek-tool-call",
    preset: "deepseek",
    expected: {
      text: "",
      calls: [
        { id: "call_00_9V0vrf86Pc9aelHCJMZqnJBo", name: "weather", args: { location: "San Francisco" } },
      ],
      usage: { inputTokens: 339, outputTokens: 92, cachedInputTokens: 320, reasoningTokens: 48 },
      finishReason: "tool_calls",
    },
  },
  {
    capture: "groq--groq-tool-call",
    preset: "groq",
    expected: {
      text: "",
      calls: [{ id: "ax9fskhev", name: "weather", args: {} }],
      usage: { inputTokens: 218, outputTokens: 15 },
      finishReason: "tool_calls",
    },
  },
  {
    capture: "openai-compatible--xai-tool-call",
    preset: "compatible",
    expected: {
      text: "",
      calls: [{ id: "call_46427107", name: "weather", args: { location: "San Francisco" } }],
      usage: { inputTokens: 307, outputTokens: 281, cachedInputTokens: 244, reasoningTokens: 255 },
      finishReason: "tool_calls",
    },
  },
];

function modelFor(preset: Case["preset"]): OpenAIChatModel {
  const baseURL = `${server.url}/v1`;
  if (preset === "compatible")
    return new OpenAIChatModel({ model: "m", baseURL, apiKey: "sk-test-key-1234", provider: "compatible" });
  return presetModel(preset, "m", { baseURL, apiKey: "sk-test-key-1234", env: {} });
}

function request(stream: boolean): ModelRequest {
  return {
    messages: [{ role: "user", content: "What is the weather in San Francisco?" }],
    tools: [{ name: "weather", description: "Weather at a place.", parameters: { type: "object" } }],
    stream,
    signal: new AbortController().signal,
  };
}

function check(response: ModelResponse, expected: Expected): void {
  if (typeof expected.text === "string") expect(response.text).toBe(expected.text);
  else expected.text(response.text);
  expect(
    response.toolCalls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments) as unknown })),
  ).toEqual(expected.calls);
  expect(response.usage).toEqual(expected.usage);
  expect(response.finishReason).toBe(expected.finishReason);
  if (expected.modelName) expect(response.modelName).toBe(expected.modelName);
}

describe("streamed captures", () => {
  it.each(streams)("$capture", async ({ capture, preset, expected }) => {
    const sse = openaiCaptureSse(capture);
    server.enqueue({ sse, split: [7, 100, 101, 102, 1000] });
    const deltas: ModelDelta[] = [];
    const response = await modelFor(preset).generate(request(true), {
      onRequest: () => {},
      onDelta: (d) => deltas.push(d),
    });
    check(response, expected);
    // The deltas add up to the response: text, and each call's arguments by index.
    const text = deltas.flatMap((d) => (d.type === "text" ? [d.text] : [])).join("");
    expect(text).toBe(response.text);
    const args = new Map<number, string>();
    for (const d of deltas)
      if (d.type === "tool_call") args.set(d.index, (args.get(d.index) ?? "") + d.argumentsDelta);
    expect([...args.values()]).toEqual(response.toolCalls.map((c) => c.arguments));
    // The request asked for usage in the stream.
    expect(server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it.each(streams)(
    "$capture re-chunked at random byte boundaries parses identically",
    async ({ capture }) => {
      const bytes = new TextEncoder().encode(openaiCaptureSse(capture));
      const reference = await parseChunks([bytes]);
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 60 }),
          async (cuts) => {
            const chunks = splitAt(bytes, cuts);
            expect(await parseChunks(chunks)).toEqual(reference);
          },
        ),
        { numRuns: 60 },
      );
    },
  );

  it("a stream re-chunked through the server at random boundaries gives the same response", async () => {
    const sse = openaiCaptureSse("deepseek--deepseek-tool-call");
    const size = Buffer.byteLength(sse);
    const model = modelFor("deepseek");
    const reference = await (async () => {
      server.enqueue({ sse });
      return model.generate(request(true), { onRequest: () => {} });
    })();
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: size - 1 }), { maxLength: 25 }),
        async (split) => {
          server.enqueue({ sse, split });
          expect(await model.generate(request(true), { onRequest: () => {} })).toEqual(reference);
        },
      ),
      { numRuns: 8 },
    );
  });
});

describe("non-streamed captures", () => {
  it.each(bodies)("$capture", async ({ capture, preset, expected }) => {
    server.enqueue({ json: openaiCaptureJson(capture) });
    const response = await modelFor(preset).generate(request(false), { onRequest: () => {} });
    check(response, expected);
    expect(response.raw).toEqual(openaiCaptureJson(capture));
  });
});

/** The stream parser alone (SSE reader plus assembler), fed exactly these chunks. */
async function parseChunks(chunks: Uint8Array[]): Promise<{ response: ModelResponse; deltas: string }> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  const deltas: ModelDelta[] = [];
  const quirks = modelFor("compatible").quirks;
  const assembler = new ChatStreamAssembler(
    "test",
    { ...quirks, fillToolCallIds: false },
    {
      onRequest: () => {},
      onDelta: (d) => deltas.push(d),
    },
  );
  await readEvents(body, (event) => assembler.push(event.data, event.event));
  // Deltas may be cut differently, but what they add up to must not change.
  const joined = deltas
    .map((d) => (d.type === "tool_call" ? `[${d.index}]${d.argumentsDelta}` : d.text))
    .join("");
  return { response: assembler.finish(), deltas: joined };
}

function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [0, ...[...cuts].sort((a, b) => a - b), bytes.length];
  const out: Uint8Array[] = [];
  for (let i = 0; i + 1 < points.length; i++) out.push(bytes.subarray(points[i], points[i + 1]));
  return out;
}
