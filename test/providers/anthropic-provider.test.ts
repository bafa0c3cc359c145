import fc from "fast-check";
import {
  AuthenticationError,
  ConfigError,
  ContextOverflowError,
  type ModelDelta,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
} from "glassloop";
import {
  AnthropicModel,
  NetworkError,
  ProviderProtocolError,
  StreamIdleTimeoutError,
} from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  anthropicJsonCaptures,
  anthropicStreamCaptures,
  captureJson,
  captureSse,
} from "../helpers/anthropic-captures.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

const KEY = "sk-ant-test-0123456789abcdefghij";
const FAST = { retry: { initialDelayMs: 5, maxDelayMs: 20 } };

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function model(options: ConstructorParameters<typeof AnthropicModel>[1] = {}) {
  return new AnthropicModel("claude-sonnet-4-5", {
    apiKey: KEY,
    baseURL: server.url,
    http: FAST,
    ...options,
  });
}

function request(stream: boolean): ModelRequest {
  return {
    instructions: "Be brief.",
    messages: [{ role: "user", content: "Hello" }],
    tools: [{ name: "json", description: "Answer as JSON.", parameters: { type: "object", properties: {} } }],
    stream,
    signal: new AbortController().signal,
  };
}

interface Seen {
  requests: { body: unknown; url?: string; attempt: number }[];
  retries: { attempt: number; delayMs: number; error: string }[];
  deltas: ModelDelta[];
}

async function generate(
  m: AnthropicModel,
  stream: boolean,
): Promise<{ response: ModelResponse; seen: Seen }> {
  const seen: Seen = { requests: [], retries: [], deltas: [] };
  const response = await m.generate(request(stream), {
    onRequest: (w) => seen.requests.push(w),
    onRetry: (r) => seen.retries.push(r),
    onDelta: (d) => seen.deltas.push(d),
  });
  return { response, seen };
}

/** What a capture must parse into: the comparable part of a response. */
function essence(r: ModelResponse) {
  return {
    text: r.text,
    toolCalls: r.toolCalls.map((c) => ({ id: c.id, name: c.name, args: JSON.parse(c.arguments) as unknown })),
    usage: r.usage,
    finishReason: r.finishReason,
  };
}

// What each well-formed capture holds, written out by hand from the files.
const EXPECTED: Record<string, Omit<ReturnType<typeof essence>, "finishReason"> & { finishReason?: string }> =
  {
    "anthropic--anthropic-json-tool.1.chunks": {
      text: "",
      toolCalls: [
        {
          id: "toolu_01KFbKqPYSuAKujiL6mTfzYA",
          name: "json",
          args: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
        },
      ],
      usage: { inputTokens: 849, outputTokens: 47 },
      finishReason: "tool_calls",
    },
    "anthropic--anthropic-json-tool.2.chunks": {
      text: "I'll invoke the JSON response tool.",
      toolCalls: [
        {
          id: "toolu_01KFbKqPYSuAKujiL6mTfzYA",
          name: "json",
          args: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
        },
      ],
      usage: { inputTokens: 849, outputTokens: 47 },
      finishReason: "tool_calls",
    },
    "anthropic--anthropic-text.chunks": {
      text: "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      toolCalls: [],
      usage: { inputTokens: 12, outputTokens: 30 },
      finishReason: "stop",
    },
    "anthropic--anthropic-tool-no-args.chunks": {
      text: "I'll update the issue list for you.",
      toolCalls: [{ id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", args: {} }],
      usage: { inputTokens: 565, outputTokens: 48 },
      finishReason: "tool_calls",
    },
    "anthropic--duplicate-message-start.chunks": {
      text: "Hello, World!",
      toolCalls: [],
      usage: { inputTokens: 17, outputTokens: 227 },
      finishReason: "stop",
    },
    "anthropic--anthropic-json-tool.1.json": {
      text: "",
      toolCalls: [
        {
          id: "toolu_01Q9ExVZnzZj7E2QQYHYtNUa",
          name: "json",
          args: {
            elements: [
              { location: "San Francisco", temperature: -5, condition: "snowy" },
              { location: "London", temperature: 0, condition: "snowy" },
              { location: "Paris", temperature: 23, condition: "cloudy" },
              { location: "Berlin", temperature: -9, condition: "snowy" },
            ],
          },
        },
      ],
      usage: { inputTokens: 1151, outputTokens: 87 },
      finishReason: "tool_calls",
    },
    "anthropic--anthropic-text.json": {
      text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?",
      toolCalls: [],
      usage: { inputTokens: 12, outputTokens: 29 },
      finishReason: "stop",
    },
    "anthropic--anthropic-tool-no-args.json": {
      text: "<thinking>\nThe updateIssueList tool was provided in the list of available functions. The tool has no required parameters, so it can be called without any additional information needed from the user.\n</thinking>\n\nOkay, I will update the current issue list:",
      toolCalls: [{ id: "toolu_01LRmxn9vGM1d2DZSDBowdZ1", name: "updateIssueList", args: {} }],
      usage: { inputTokens: 602, outputTokens: 93 },
      finishReason: "tool_calls",
    },
  };

const MALFORMED = new Set(["anthropic--spliced-message-start"]);

describe("AnthropicModel on the wire", () => {
  it("covers every Anthropic capture (so a new one cannot slip through untested)", () => {
    const names = [
      ...anthropicStreamCaptures().map((n) => `${n}.chunks`),
      ...anthropicJsonCaptures().map((n) => `${n}.json`),
    ];
    for (const name of names) {
      expect(name in EXPECTED || MALFORMED.has(name.replace(/\.chunks$/, ""))).toBe(true);
    }
    expect(names.length).toBe(Object.keys(EXPECTED).length + MALFORMED.size);
  });

  it("sends POST /v1/messages with x-api-key, anthropic-version, and the body the event shows", async () => {
    server.enqueue({ json: captureJson("anthropic--anthropic-text") });
    const { seen } = await generate(model(), false);
    const sent = server.requests[0];
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/v1/messages");
    expect(sent?.headers["x-api-key"]).toBe(KEY);
    expect(sent?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(JSON.stringify(seen.requests[0]?.body)).toBe(sent?.raw);
    expect(seen.requests[0]?.url).toBe(`${server.url}/v1/messages`);
    expect(sent?.body).toMatchObject({
      model: "claude-sonnet-4-5",
      max_tokens: 4096,
      // The default cache policy marks the system prompt as a breakpoint.
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
    });
    // No `"stream": false` on a non-streamed call, as the official SDKs send.
    expect(sent?.body).not.toHaveProperty("stream");
  });

  for (const name of anthropicJsonCaptures()) {
    it(`replays ${name}.json (non-streaming)`, async () => {
      server.enqueue({ json: captureJson(name) });
      const { response } = await generate(model(), false);
      expect(essence(response)).toEqual(EXPECTED[`${name}.json`]);
    });
  }

  for (const name of anthropicStreamCaptures().filter((n) => !MALFORMED.has(n))) {
    it(`replays ${name} streaming, deltas adding up to the result`, async () => {
      server.enqueue({ sse: captureSse(name) });
      const { response, seen } = await generate(model(), true);
      expect(essence(response)).toEqual(EXPECTED[`${name}.chunks`]);
      expect(server.requests[0]?.body).toMatchObject({ stream: true });
      const text = seen.deltas.flatMap((d) => (d.type === "text" ? [d.text] : [])).join("");
      expect(text).toBe(response.text);
    });
  }

  it("reports a stream with two generations spliced together as ProviderProtocolError, promptly", async () => {
    server.enqueue({ sse: captureSse("anthropic--spliced-message-start") });
    const error = await generate(model(), true).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderProtocolError);
    expect((error as Error).message).toMatch(/spliced/);
    expect(server.requests).toHaveLength(1);
  });

  it("gives identical results however the stream is cut into chunks", async () => {
    const names = anthropicStreamCaptures().filter((n) => !MALFORMED.has(n));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.uniqueArray(fc.integer({ min: 1, max: 4000 }), { maxLength: 12 }),
        async (name, cuts) => {
          const sse = captureSse(name);
          const size = Buffer.byteLength(sse);
          server.reset();
          server.enqueue({ sse, split: cuts.map((c) => c % size) });
          const { response } = await generate(model(), true);
          expect(essence(response)).toEqual(EXPECTED[`${name}.chunks`]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("stops reading at message_stop even if the server keeps the connection open", async () => {
    const sse = captureSse("anthropic--anthropic-text");
    server.enqueue({
      sse: `${sse}event: ping\ndata: {"type":"ping"}\n\n`,
      stallAt: Buffer.byteLength(sse) + 5,
    });
    const { response } = await generate(model(), true);
    expect(response.text).toMatch(/^Hello!/);
  });

  it("reports a stream cut before message_stop as a typed error", async () => {
    const sse = captureSse("anthropic--anthropic-text");
    server.enqueue({ sse, endAt: Math.floor(Buffer.byteLength(sse) / 2) });
    await expect(generate(model(), true)).rejects.toThrow(ProviderProtocolError);
  });

  it("a stream that stalls mid-message ends in StreamIdleTimeoutError, not a hang", async () => {
    const sse = captureSse("anthropic--anthropic-json-tool.2");
    server.enqueue({ sse, stallAt: Math.floor(Buffer.byteLength(sse) / 2) });
    const stalled = model({ http: { ...FAST, streamIdleTimeoutMs: 150 } });
    await expect(generate(stalled, true)).rejects.toThrow(StreamIdleTimeoutError);
  });

  it("a connection reset mid-stream is a NetworkError, not retried once a delta was delivered", async () => {
    const sse = captureSse("anthropic--anthropic-json-tool.2");
    server.enqueue({ sse, resetAt: Math.floor(Buffer.byteLength(sse) / 2) });
    await expect(generate(model(), true)).rejects.toThrow(NetworkError);
    expect(server.requests).toHaveLength(1);
  });

  it("aborting mid-stream rejects promptly with the caller's reason", async () => {
    const sse = captureSse("anthropic--anthropic-text");
    server.enqueue({ sse, stallAt: Math.floor(Buffer.byteLength(sse) / 2) });
    const controller = new AbortController();
    const pending = model().generate(
      { ...request(true), signal: controller.signal },
      { onRequest: () => {}, onDelta: () => controller.abort(new Error("stop now")) },
    );
    await expect(pending).rejects.toThrow("stop now");
  });

  it("reports a malformed JSON event as a typed error", async () => {
    server.enqueue({
      sse: 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","content":[]}}\n\nevent: content_block_start\ndata: {"type":"content_bl\n\n',
    });
    await expect(generate(model(), true)).rejects.toThrow(/not JSON/);
  });
});

describe("AnthropicModel errors and retries", () => {
  it("401 is an AuthenticationError whose message and excerpt never show the key", async () => {
    server.enqueue({
      status: 401,
      json: { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } },
    });
    const error = await generate(model(), false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
    const shown = JSON.stringify({ m: (error as Error).message, e: (error as AuthenticationError).excerpt });
    expect(shown).not.toContain(KEY);
    expect(shown).toContain("[REDACTED]");
    expect(server.requests).toHaveLength(1);
  });

  it("529 overloaded is retried, each retry reported, then succeeds", async () => {
    const overloaded = {
      status: 529,
      json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    };
    server.enqueue(overloaded, overloaded, { json: captureJson("anthropic--anthropic-text") });
    const { response, seen } = await generate(model(), false);
    expect(response.text).toMatch(/^Hello!/);
    expect(seen.retries.map((r) => r.attempt)).toEqual([2, 3]);
    expect(seen.retries[0]?.error).toMatch(/529.*Overloaded/);
    expect(seen.requests.map((r) => r.attempt)).toEqual([1, 2, 3]);
  });

  it("529 on a streaming request is retried as well", async () => {
    server.enqueue(
      { status: 529, json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      { sse: captureSse("anthropic--anthropic-text") },
    );
    const { response } = await generate(model(), true);
    expect(response.finishReason).toBe("stop");
    expect(server.requests).toHaveLength(2);
  });

  it('"prompt is too long" is a ContextOverflowError, not retried', async () => {
    server.enqueue({
      status: 400,
      json: {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "prompt is too long: 208310 tokens > 200000 maximum",
        },
      },
    });
    const error = await generate(model(), false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(server.requests).toHaveLength(1);
  });

  const overloadedEvent =
    'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';

  it("an overloaded error event before any delta is retried with the same body, then succeeds", async () => {
    const events = captureSse("anthropic--anthropic-text").split("\n\n");
    server.enqueue(
      // The very first event is the error (HTTP 200, status 529 semantics).
      { sse: overloadedEvent },
      // message_start arrived, but no text yet: still nothing reached the caller.
      { sse: `${events[0]}\n\n${overloadedEvent}` },
      { sse: captureSse("anthropic--anthropic-text") },
    );
    const { response, seen } = await generate(model(), true);
    expect(response.text).toMatch(/^Hello!/);
    expect(response.finishReason).toBe("stop");
    expect(seen.retries.map((r) => r.attempt)).toEqual([2, 3]);
    expect(seen.retries[0]?.error).toMatch(/Overloaded/);
    expect(seen.requests.map((r) => r.attempt)).toEqual([1, 2, 3]);
    expect(new Set(seen.requests.map((r) => r.body)).size).toBe(1);
    expect(new Set(server.requests.map((r) => r.raw)).size).toBe(1);
    // The deltas are those of the successful attempt alone, nothing replayed.
    expect(seen.deltas.map((d) => (d.type === "text" ? d.text : "")).join("")).toBe(response.text);
  });

  it("an error event after a text delta becomes the same typed error as over HTTP, not retried", async () => {
    const events = captureSse("anthropic--anthropic-text").split("\n\n");
    const firstText = events.findIndex((e) => e.includes('"text_delta"'));
    server.enqueue({ sse: `${events.slice(0, firstText + 1).join("\n\n")}\n\n${overloadedEvent}` });
    const seen: ModelDelta[] = [];
    const error = await model()
      .generate(request(true), { onRequest: () => {}, onDelta: (d) => seen.push(d) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(529);
    expect((error as Error).message).toMatch(/Overloaded/);
    expect(seen.length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
  });

  it("a missing key is a ConfigError that names ANTHROPIC_API_KEY", () => {
    expect(() => new AnthropicModel("claude-sonnet-4-5", { env: {} })).toThrow(ConfigError);
    expect(() => new AnthropicModel("claude-sonnet-4-5", { env: {} })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it("takes key and base URL from the environment, and accepts a base URL ending in /v1", () => {
    const m = new AnthropicModel("claude-haiku-4-5", {
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: "http://127.0.0.1:9/v1/" },
    });
    expect(m.url).toBe("http://127.0.0.1:9/v1/messages");
    expect(m.id).toBe("anthropic:claude-haiku-4-5");
    expect(new AnthropicModel("x", { apiKey: KEY, env: {} }).url).toBe(
      "https://api.anthropic.com/v1/messages",
    );
  });

  it("sends max_tokens from the options, overridden by the request's maxOutputTokens", async () => {
    server.enqueue(
      { json: captureJson("anthropic--anthropic-text") },
      { json: captureJson("anthropic--anthropic-text") },
    );
    const m = model({ maxTokens: 1000 });
    await generate(m, false);
    await m.generate({ ...request(false), maxOutputTokens: 50 }, { onRequest: () => {} });
    expect(server.requests.map((r) => (r.body as { max_tokens: number }).max_tokens)).toEqual([1000, 50]);
  });
});
