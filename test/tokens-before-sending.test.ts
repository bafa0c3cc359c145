/**
 * Tokens before sending: the estimate, a provider's own count on its recorded wire (Bedrock's
 * CountTokens), and the typed error for a request that cannot fit the model's window, raised
 * before anything is sent.
 */
import { type Model, type ModelRequest, resolveModel } from "glassloop";
import {
  AnthropicModel,
  BedrockModel,
  ContextWindowError,
  countTokens,
  estimateRequestTokens,
  GeminiModel,
  type OpenAIChatModel,
  OpenAIResponsesModel,
} from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { bedrockReply, loadBedrockCassette } from "./helpers/bedrock-cassettes.js";
import { startWireServer, type WireServer } from "./helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const ask = (text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: "user", content: text }],
  tools: [],
  signal: AbortSignal.timeout(10_000),
  ...extra,
});

describe("counting tokens before sending", () => {
  it("estimates about four characters a token, plus framing per message", () => {
    expect(estimateRequestTokens(ask("x".repeat(400)))).toBe(100 + 4);
    const withImage = ask("hi");
    (withImage.messages[0] as { images?: unknown[] }).images = [
      { type: "image", mediaType: "image/png", data: "AAAA" },
    ];
    expect(estimateRequestTokens(withImage)).toBeGreaterThan(1_600);
  });

  it("Bedrock counts with its CountTokens endpoint: the recorded request and answer", async () => {
    const [exchange] = loadBedrockCassette("test_bedrock_count_tokens_tool_config");
    server.enqueue(bedrockReply(exchange));
    const model = new BedrockModel("anthropic.claude-sonnet-4-20250514-v1:0", {
      baseURL: server.url,
      env: { AWS_ACCESS_KEY_ID: "AKID", AWS_SECRET_ACCESS_KEY: "s", AWS_REGION: "us-east-1" },
    });
    const count = await countTokens(
      model,
      ask("What is the weather in Paris?", {
        tools: [
          {
            name: "get_weather",
            description: "Get the weather for a location",
            parameters: { type: "object", properties: { location: { type: "string" } } },
          },
        ],
      }),
    );
    expect(count).toEqual({ tokens: 375, source: "provider" });
    const sent = server.requests[0];
    expect(sent?.path).toBe("/model/anthropic.claude-sonnet-4-20250514-v1%3A0/count-tokens");
    expect(String(sent?.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 /);
    // The recorded body, but for `toolChoice: auto`, which is Converse's default and not sent here.
    const recorded = exchange?.body as { input: { converse: { toolConfig: Record<string, unknown> } } };
    const { toolChoice: _auto, ...toolConfig } = recorded.input.converse.toolConfig;
    expect(sent?.body).toEqual({ input: { converse: { ...recorded.input.converse, toolConfig } } });
  });

  it("OpenAI models are counted with OpenAI's tokenizer (o200k_base), others without a count endpoint estimated", async () => {
    const model = resolveModel("openai:gpt-4o", { OPENAI_API_KEY: "sk-123456" });
    // "Hello, world!" is 4 o200k_base tokens, plus 4 for the message's framing.
    expect(await countTokens(model, ask("Hello, world!"))).toEqual({ tokens: 8, source: "tokenizer" });
    const mistral = resolveModel("mistral:mistral-small-latest", { MISTRAL_API_KEY: "m-123456" });
    expect(await countTokens(mistral, ask("abcd"))).toEqual({ tokens: 5, source: "estimate" });
  });

  it("a model with a count endpoint estimates when the extra call is not allowed", async () => {
    const model = new AnthropicModel("claude-sonnet-4-5", { apiKey: "sk-ant-123456", baseURL: server.url });
    expect(await countTokens(model, ask("abcd"), { useProvider: false })).toEqual({
      tokens: 5,
      source: "estimate",
    });
    expect(server.requests).toHaveLength(0);
  });

  it("a request over the model's window is a ContextWindowError before anything is sent", async () => {
    const model = resolveModel("openai:gpt-4o-mini", {
      OPENAI_API_KEY: "sk-123456",
      OPENAI_BASE_URL: `${server.url}/v1`,
    }) as OpenAIChatModel;
    expect(model.contextWindow).toBe(128_000);
    const error = await model
      .generate(ask("word ".repeat(110_000), { maxOutputTokens: 16_000 }), { onRequest: () => {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextWindowError);
    expect(error).toMatchObject({ code: "context_window_exceeded", contextWindow: 128_000 });
    expect(server.requests).toHaveLength(0);
  });
});

describe("the window check in every provider, before anything is sent", () => {
  const builds: [string, (contextWindow?: number) => Model][] = [
    [
      "anthropic:claude-sonnet-4-5",
      (w) =>
        new AnthropicModel("claude-sonnet-4-5", {
          apiKey: "sk-ant-123456",
          baseURL: server.url,
          ...(w && { contextWindow: w }),
        }),
    ],
    [
      "google:gemini-2.5-flash",
      (w) =>
        new GeminiModel("gemini-2.5-flash", {
          apiKey: "g-123456",
          baseURL: server.url,
          ...(w && { contextWindow: w }),
        }),
    ],
    [
      "openai-responses:gpt-4o-mini",
      (w) =>
        new OpenAIResponsesModel("gpt-4o-mini", {
          apiKey: "sk-123456",
          baseURL: server.url,
          ...(w && { contextWindow: w }),
        }),
    ],
    [
      "bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0",
      (w) =>
        new BedrockModel("anthropic.claude-sonnet-4-5-20250929-v1:0", {
          baseURL: server.url,
          env: { AWS_ACCESS_KEY_ID: "AKID", AWS_SECRET_ACCESS_KEY: "s", AWS_REGION: "us-east-1" },
          ...(w && { contextWindow: w }),
        }),
    ],
  ];

  it.each(builds)(
    "%s knows its window from the table and refuses a request over it, streamed or not",
    async (_id, build) => {
      const model = build();
      expect(model.contextWindow).toBeGreaterThanOrEqual(128_000);
      const small = build(1_000);
      expect(small.contextWindow).toBe(1_000);
      for (const stream of [false, true]) {
        const error = await small
          .generate(ask("word ".repeat(1_000), { stream }), { onRequest: () => {} })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ContextWindowError);
        expect(error).toMatchObject({
          code: "context_window_exceeded",
          contextWindow: 1_000,
          modelId: small.id,
        });
      }
      // The output asked for counts too: 600 input tokens fit 1,000, not with 500 more to write.
      const output = await small
        .generate(ask("word ".repeat(480), { maxOutputTokens: 500 }), { onRequest: () => {} })
        .catch((e: unknown) => e);
      expect(output).toBeInstanceOf(ContextWindowError);
      expect(server.requests).toHaveLength(0);
    },
  );
});

describe("Anthropic's count endpoint, on its recorded wire", () => {
  it("POSTs the request's content to /v1/messages/count_tokens and reads input_tokens", async () => {
    const { loadCassette, replyOf } = await import("./helpers/cassettes.js");
    const [exchange] = loadCassette<{
      messages: { content: { text: string }[] }[];
      system: string;
      model: string;
    }>("test_anthropic-test_anthropic_cache_count_tokens");
    server.enqueue(replyOf(exchange));
    const { AnthropicModel } = await import("glassloop/models");
    const recorded = exchange?.request.parsed_body;
    const text = recorded?.messages[0]?.content[0]?.text ?? "";
    const model = new AnthropicModel(recorded?.model ?? "", { apiKey: "sk-ant-123456", baseURL: server.url });
    const count = await countTokens(
      model,
      ask(text, { instructions: recorded?.system ?? "", maxOutputTokens: 100 }),
    );
    expect(count).toEqual({ tokens: 1114, source: "provider" });
    const sent = server.requests[0];
    expect(sent?.path).toBe("/v1/messages/count_tokens");
    expect(sent?.headers["x-api-key"]).toBe("sk-ant-123456");
    const body = sent?.body as Record<string, unknown>;
    expect(body).not.toHaveProperty("max_tokens");
    expect(body).not.toHaveProperty("stream");
    expect(body.model).toBe(recorded?.model);
    expect(JSON.stringify(body.messages)).toContain(text.slice(0, 200));
  });
});

describe("Google's count endpoint (:countTokens), on its recorded wire", () => {
  it("the Gemini API: the conversation as `contents`, the recorded totalTokens read back", async () => {
    const { loadCassette } = await import("./helpers/cassettes.js");
    // An older cassette: the request and the answer are recorded as JSON strings.
    const [exchange] = loadCassette("test_google-test_google_model_usage_limit_exceeded") as unknown as {
      request: { body: string; uri: string };
      response: { body: { string: string } };
    }[];
    const recorded = JSON.parse(exchange?.request.body ?? "{}") as {
      contents: { parts: { text: string }[] }[];
    };
    server.enqueue({ json: JSON.parse(exchange?.response.body.string ?? "{}") });
    const model = new GeminiModel("gemini-2.5-flash", {
      apiKey: "g-123456",
      baseURL: `${server.url}/v1beta`,
    });
    const text = recorded.contents[0]?.parts[0]?.text ?? "";
    expect(await countTokens(model, ask(text))).toEqual({ tokens: 12, source: "provider" });
    const sent = server.requests[0];
    expect(sent?.path).toBe(new URL(exchange?.request.uri ?? "").pathname);
    expect(sent?.headers["x-goog-api-key"]).toBe("g-123456");
    expect(sent?.body).toEqual(recorded);
  });

  it("the Gemini API: instructions and tools travel inside generateContentRequest", async () => {
    server.enqueue({ json: { totalTokens: 57 } });
    const model = new GeminiModel("gemini-2.5-flash", { apiKey: "g-123456", baseURL: server.url });
    const tools = [
      { name: "get_weather", description: "The weather", parameters: { type: "object", properties: {} } },
    ];
    expect(await countTokens(model, ask("hi", { instructions: "Be brief.", tools }))).toEqual({
      tokens: 57,
      source: "provider",
    });
    const body = server.requests[0]?.body as { generateContentRequest: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(["generateContentRequest"]);
    expect(body.generateContentRequest).toMatchObject({
      model: "models/gemini-2.5-flash",
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      systemInstruction: { parts: [{ text: "Be brief." }] },
      tools: [{ functionDeclarations: [{ name: "get_weather" }] }],
    });
  });

  it("Vertex AI: contents, systemInstruction and tools side by side, with the token; the recorded answer read", async () => {
    const { loadCassette } = await import("./helpers/cassettes.js");
    const [exchange] = loadCassette<{
      contents: unknown[];
      systemInstruction: { parts: { text: string }[] };
    }>("test_google-test_google_vertexai_count_tokens_forwards_native_tools");
    server.enqueue({ json: exchange?.response.parsed_body });
    const { VertexGeminiModel } = await import("glassloop/models");
    const model = new VertexGeminiModel("gemini-2.5-flash", {
      token: () => "ya29.vertex-token",
      baseURL: `${server.url}/v1/projects/pydantic-ai/locations/global/publishers/google`,
    });
    const recorded = exchange?.request.parsed_body;
    const count = await countTokens(
      model,
      ask("What is the capital of France?", {
        instructions: recorded?.systemInstruction.parts[0]?.text ?? "",
      }),
    );
    expect(count).toEqual({ tokens: 13, source: "provider" });
    const sent = server.requests[0];
    expect(sent?.path).toBe(
      "/v1/projects/pydantic-ai/locations/global/publishers/google/models/gemini-2.5-flash:countTokens",
    );
    expect(sent?.headers.authorization).toBe("Bearer ya29.vertex-token");
    // The recorded body but for its Google Search tool (a native tool glassloop does not send) and
    // the empty generationConfig; the system instruction's `role` is optional in Vertex's schema.
    const body = sent?.body as { contents: unknown; systemInstruction: { parts: unknown } };
    expect(body.contents).toEqual(recorded?.contents);
    expect(body.systemInstruction.parts).toEqual(recorded?.systemInstruction.parts);
  });
});
