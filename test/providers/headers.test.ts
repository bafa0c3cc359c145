/**
 * Headers on the wire, for every provider: one value per header name whatever its letter case,
 * and the user's headers win over the ones glassloop sets (the key from the environment, the
 * content type, `anthropic-version`). Gateways (Portkey, LiteLLM, Helicone) depend on both.
 */
import { Agent, type Model } from "glassloop";
import {
  AnthropicModel,
  anthropic,
  google,
  OpenAIChatModel,
  openai,
  openaiResponses,
  openrouter,
} from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const chatReply = {
  json: {
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1 },
  },
};
const messagesReply = {
  json: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    content: [{ type: "text", text: "ok" }],
    stop_reason: "end_turn",
    usage: { input_tokens: 1, output_tokens: 1 },
  },
};

async function sentHeaders(model: Model, reply: object) {
  server.enqueue(reply as Parameters<WireServer["enqueue"]>[0]);
  await new Agent({ model, instructions: "Answer." }).run("hi");
  const request = server.requests[0];
  if (!request) throw new Error("no request reached the server");
  return request.headers;
}

const gateway = {
  Authorization: "Bearer sk-gateway",
  "Content-Type": "application/json; charset=utf-8",
  "X-Portkey-Trace": "t-1",
};

describe("one value per header, the user's winning", () => {
  it("openai: a user Authorization in another letter case replaces the key's, sent once", async () => {
    const headers = await sentHeaders(
      openai("gpt-4o-mini", {
        baseURL: `${server.url}/v1`,
        headers: gateway,
        env: { OPENAI_API_KEY: "sk-env-0123456789" },
      }),
      chatReply,
    );
    expect(headers.authorization).toBe("Bearer sk-gateway");
    expect(headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(headers["x-portkey-trace"]).toBe("t-1");
  });

  it("OpenAIChatModel: an apiKey and a user AUTHORIZATION header give one authorization, the user's", async () => {
    const headers = await sentHeaders(
      new OpenAIChatModel({
        model: "m",
        baseURL: `${server.url}/v1`,
        apiKey: "sk-option-0123456789",
        headers: { AUTHORIZATION: "Bearer sk-gateway" },
      }),
      chatReply,
    );
    expect(headers.authorization).toBe("Bearer sk-gateway");
  });

  it("presets (openrouter): the same rule", async () => {
    const headers = await sentHeaders(
      openrouter("openai/gpt-4o-mini", {
        baseURL: `${server.url}/v1`,
        headers: { authorization: "Bearer sk-gateway", "HTTP-Referer": "https://example.test" },
        env: { OPENROUTER_API_KEY: "sk-or-0123456789" },
      }),
      chatReply,
    );
    expect(headers.authorization).toBe("Bearer sk-gateway");
    expect(headers["http-referer"]).toBe("https://example.test");
  });

  it("anthropic: user X-Api-Key, Anthropic-Version and Content-Type replace ours, sent once", async () => {
    const headers = await sentHeaders(
      anthropic("claude-sonnet-4-5", {
        baseURL: server.url,
        apiKey: "sk-ant-option-0123456789",
        headers: {
          "X-Api-Key": "sk-ant-gateway",
          "Anthropic-Version": "2024-01-01",
          "Content-Type": "application/json; charset=utf-8",
        },
      }),
      messagesReply,
    );
    expect(headers["x-api-key"]).toBe("sk-ant-gateway");
    expect(headers["anthropic-version"]).toBe("2024-01-01");
    expect(headers["content-type"]).toBe("application/json; charset=utf-8");
  });

  it("google (Gemini): a user X-Goog-Api-Key replaces the key's, sent once", async () => {
    const headers = await sentHeaders(
      google("gemini-2.5-flash", {
        baseURL: server.url,
        apiKey: "gm-option-0123456789",
        headers: { "X-Goog-Api-Key": "gm-gateway" },
      }),
      {
        json: {
          candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }],
          usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
        },
      },
    );
    expect(headers["x-goog-api-key"]).toBe("gm-gateway");
  });

  it("openai-responses: a user Authorization replaces the key's, sent once", async () => {
    const headers = await sentHeaders(
      openaiResponses("gpt-5", {
        baseURL: `${server.url}/v1`,
        apiKey: "sk-option-0123456789",
        headers: { Authorization: "Bearer sk-gateway" },
      }),
      {
        json: {
          id: "resp_1",
          object: "response",
          status: "completed",
          output: [
            {
              type: "message",
              id: "msg_1",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: "ok", annotations: [] }],
            },
          ],
          usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
        },
      },
    );
    expect(headers.authorization).toBe("Bearer sk-gateway");
  });

  it("no header glassloop sets arrives joined with a comma", async () => {
    const headers = await sentHeaders(
      openai("gpt-4o-mini", {
        baseURL: `${server.url}/v1`,
        headers: { Accept: "application/json", "CONTENT-TYPE": "application/json" },
        apiKey: "sk-option-0123456789",
      }),
      chatReply,
    );
    expect(headers.accept).toBe("application/json");
    expect(headers["content-type"]).toBe("application/json");
    expect(headers.authorization).toBe("Bearer sk-option-0123456789");
  });
});

describe("anthropic against a compatible server", () => {
  it("runs without a key when ANTHROPIC_BASE_URL points elsewhere, and sends no x-api-key", async () => {
    server.enqueue(messagesReply);
    const model = new AnthropicModel("local-model", { env: { ANTHROPIC_BASE_URL: server.url } });
    const result = await new Agent({ model, instructions: "Answer." }).run("hi");
    expect(result.output).toBe("ok");
    expect(server.requests[0]?.headers["x-api-key"]).toBeUndefined();
  });

  it("runs without a key when the baseURL option points elsewhere", async () => {
    server.enqueue(messagesReply);
    const model = anthropic("local-model", { baseURL: server.url, env: {} });
    expect((await new Agent({ model, instructions: "Answer." }).run("hi")).output).toBe("ok");
  });

  it("still needs a key for api.anthropic.com, like the OpenAI preset for api.openai.com", () => {
    expect(() => anthropic("claude-sonnet-4-5", { env: {} })).toThrow(/ANTHROPIC_API_KEY/);
    expect(() => openai("gpt-4o-mini", { env: {} })).toThrow(/OPENAI_API_KEY/);
  });

  it("a non-streamed call sends no stream field, as the official SDKs do", async () => {
    server.enqueue(messagesReply);
    const model = anthropic("claude-sonnet-4-5", { baseURL: server.url, apiKey: "sk-ant-0123456789" });
    await new Agent({ model, instructions: "Answer." }).run("hi");
    expect(server.requests[0]?.body).not.toHaveProperty("stream");
  });

  it("the user's anthropic-version is sent as the only one", async () => {
    const headers = await sentHeaders(
      anthropic("claude-sonnet-4-5", {
        baseURL: server.url,
        apiKey: "sk-ant-0123456789",
        headers: { "anthropic-version": "2099-01-01" },
      }),
      messagesReply,
    );
    expect(headers["anthropic-version"]).toBe("2099-01-01");
  });
});
