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

  it("without a count endpoint, or when the extra call is not allowed, it estimates", async () => {
    const model = resolveModel("openai:gpt-4o", { OPENAI_API_KEY: "sk-123456" });
    expect(await countTokens(model, ask("abcd"))).toEqual({ tokens: 5, source: "estimate" });
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
