/**
 * Azure OpenAI and Gemini on Vertex AI replaying real recorded answers (vercel/ai's Azure
 * fixtures, pydantic-ai's Vertex cassette) through a 127.0.0.1 server: the path each cloud
 * uses, its auth header (a key or a bearer token fetched for each call), and the recorded
 * answer parsed; missing credentials are a typed error that names what to set.
 */
import { type ModelRequest, resolveModel } from "glassloop";
import { AzureOpenAIModel, CloudCredentialsError, VertexGeminiModel } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadCassette, replyOf } from "./helpers/cassettes.js";
import { openaiCaptureJson, openaiCaptureSse } from "./helpers/openai-captures.js";
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
const observer = { onRequest: () => {} };

const chatAnswer = {
  json: {
    id: "chatcmpl-1",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
  },
};

describe("Azure OpenAI", () => {
  it("the Responses API on /openai/v1 with api-key: Azure's recorded answer parses", async () => {
    server.enqueue({ json: openaiCaptureJson("azure--azure-text.1") });
    const model = new AzureOpenAIModel("gpt-4.1-mini", {
      endpoint: server.url,
      api: "responses",
      env: { AZURE_OPENAI_API_KEY: "azure-key-123456", OPENAI_API_KEY: "sk-openai-never-sent" },
    });
    const response = await model.generate(ask("Hello"), observer);
    expect(response.text.length).toBeGreaterThan(0);
    const sent = server.requests[0];
    expect(sent?.path).toBe("/openai/v1/responses");
    expect(sent?.headers["api-key"]).toBe("azure-key-123456");
    expect(sent?.headers.authorization).toBeUndefined();
    expect(sent?.body).toMatchObject({ model: "gpt-4.1-mini" });
  });

  it("a recorded streamed Responses answer and a recorded tool call parse", async () => {
    const model = new AzureOpenAIModel("gpt-4.1-mini", {
      endpoint: server.url,
      api: "responses",
      apiKey: "azure-key-123456",
      env: {},
    });
    server.enqueue({
      headers: { "content-type": "text/event-stream" },
      sse: openaiCaptureSse("azure--azure-text.1").replace(/data: \[DONE\]\n\n$/, ""),
    });
    const streamed = await model.generate(ask("Hello", { stream: true }), observer);
    expect(streamed.text.length).toBeGreaterThan(0);
    server.enqueue({ json: openaiCaptureJson("azure--azure-tool-call.1") });
    const called = await model.generate(ask("Weather in San Francisco?"), observer);
    expect(called.toolCalls).toMatchObject([{ name: "weather", arguments: '{"location":"San Francisco"}' }]);
    expect(called.usage).toMatchObject({ inputTokens: 45, outputTokens: 24 });
  });

  it("Chat Completions on the classic deployments path carries api-version", async () => {
    server.enqueue(chatAnswer);
    const model = new AzureOpenAIModel("my-4o", {
      endpoint: `${server.url}/`,
      apiVersion: "2024-10-21",
      apiKey: "azure-key-123456",
      baseModel: "gpt-4o",
      env: {},
    });
    const response = await model.generate(ask("hi", { maxOutputTokens: 10 }), observer);
    expect(response.text).toBe("ok");
    expect(server.requests[0]?.path).toBe(
      "/openai/deployments/my-4o/chat/completions?api-version=2024-10-21",
    );
    expect(server.requests[0]?.body).toMatchObject({ model: "my-4o", max_completion_tokens: 10 });
    expect(model.price).toMatchObject({ inputPerMTok: 2.5 });
    expect(model.contextWindow).toBe(128_000);
  });

  it("Entra ID: a bearer token is fetched for each call, and a failing provider is a typed error", async () => {
    const tokens = ["entra-token-1", "entra-token-2"];
    let asked = 0;
    const model = new AzureOpenAIModel("d", {
      endpoint: server.url,
      token: async () => tokens[asked++] ?? "",
      env: {},
    });
    server.enqueue(chatAnswer, chatAnswer);
    await model.generate(ask("hi"), observer);
    await model.generate(ask("hi"), observer);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      "Bearer entra-token-1",
      "Bearer entra-token-2",
    ]);
    expect(server.requests[0]?.headers["api-key"]).toBeUndefined();
    const failing = new AzureOpenAIModel("d", {
      endpoint: server.url,
      token: () => {
        throw new Error("AADSTS700016: application not found");
      },
      env: {},
    });
    const error = await failing.generate(ask("hi"), observer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudCredentialsError);
    expect((error as Error).message).toMatch(/AADSTS700016.*@azure\/identity/);
    expect(server.requests).toHaveLength(2);
  });

  it("no key and no token, or no resource, is an error naming the variables", () => {
    expect(() => resolveModel("azure:d", { AZURE_RESOURCE_NAME: "res" })).toThrow(CloudCredentialsError);
    expect(() => resolveModel("azure:d", { AZURE_RESOURCE_NAME: "res" })).toThrow(/AZURE_OPENAI_API_KEY/);
    expect(() => resolveModel("azure:d", { AZURE_OPENAI_API_KEY: "k" })).toThrow(/AZURE_OPENAI_ENDPOINT/);
    const model = resolveModel("azure:d", {
      AZURE_RESOURCE_NAME: "res",
      AZURE_OPENAI_API_KEY: "k",
    }) as AzureOpenAIModel;
    expect(model.baseURL).toBe("https://res.openai.azure.com/openai/v1");
  });
});

describe("Gemini on Vertex AI", () => {
  it("replays pydantic-ai's recorded Vertex call: the regional project path, a bearer token, the recorded answer", async () => {
    const [exchange] = loadCassette("test_google-test_google_model_vertex_provider");
    server.enqueue(replyOf(exchange));
    const model = new VertexGeminiModel("gemini-2.0-flash", {
      baseURL: `${server.url}/v1beta1/projects/pydantic-ai/locations/global/publishers/google`,
      token: () => "ya29.vertex-token",
      env: { GEMINI_API_KEY: "gemini-key-never-sent" },
    });
    const response = await model.generate(
      ask("What is the capital of France?", { instructions: "You are a helpful chatbot." }),
      observer,
    );
    const sent = server.requests[0];
    expect(sent?.path).toBe(
      "/v1beta1/projects/pydantic-ai/locations/global/publishers/google/models/gemini-2.0-flash:generateContent",
    );
    expect(sent?.headers.authorization).toBe("Bearer ya29.vertex-token");
    expect(sent?.headers["x-goog-api-key"]).toBeUndefined();
    const recorded = exchange?.request.parsed_body as Record<string, unknown>;
    const body = sent?.body as { contents: unknown; systemInstruction: { parts: unknown } };
    expect(body.contents).toEqual(recorded.contents);
    // The recording's client also sends `role: "user"` on the system instruction, which Vertex ignores.
    expect(body.systemInstruction.parts).toEqual((recorded.systemInstruction as { parts: unknown }).parts);
    expect(response.text).toMatch(/Paris/);
  });

  it("builds the regional endpoint from the project and location", () => {
    const env = { GOOGLE_CLOUD_PROJECT: "proj", GOOGLE_CLOUD_LOCATION: "europe-west4" };
    const regional = new VertexGeminiModel("gemini-2.5-flash", { token: () => "t", env });
    expect(regional.baseURL).toBe(
      "https://europe-west4-aiplatform.googleapis.com/v1/projects/proj/locations/europe-west4/publishers/google",
    );
    const global = new VertexGeminiModel("gemini-2.5-flash", { token: () => "t", location: "global", env });
    expect(global.baseURL).toMatch(
      /^https:\/\/aiplatform\.googleapis\.com\/v1\/projects\/proj\/locations\/global\//,
    );
    expect(regional.contextWindow).toBe(1_048_576);
  });

  it("no token and no express key is a CloudCredentialsError naming google-auth-library", () => {
    expect(() => resolveModel("vertex:gemini-2.5-flash", { GOOGLE_CLOUD_PROJECT: "p" })).toThrow(
      CloudCredentialsError,
    );
    expect(() => resolveModel("vertex:gemini-2.5-flash", { GOOGLE_CLOUD_PROJECT: "p" })).toThrow(
      /google-auth-library/,
    );
    expect(() => resolveModel("vertex:gemini-2.5-flash", { GOOGLE_VERTEX_API_KEY: "k" })).not.toThrow();
  });
});
