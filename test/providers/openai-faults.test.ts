/**
 * The fault matrix, end to end: an Agent on the OpenAI provider against a local server that
 * misbehaves. Every fault ends in success after retries or in a typed error, never in a hang, and
 * the API key shows up nowhere.
 */
import {
  Agent,
  type AgentEvent,
  AuthenticationError,
  ContextOverflowError,
  ModelCallError,
  RunAbortedError,
} from "glassloop";
import { type HttpOptions, OpenAIChatModel } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ofType } from "../helpers/core.js";
import { openaiCaptureSse } from "../helpers/openai-captures.js";
import { sseData, startWireServer, type WireServer } from "../helpers/wire-server.js";

const KEY = "sk-proj-fault-matrix-key-0123456789";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const completion = (text: string) => ({
  choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 2 },
});
const textStream = sseData([
  { choices: [{ index: 0, delta: { role: "assistant", content: "" } }] },
  { choices: [{ index: 0, delta: { content: "Hel" } }] },
  { choices: [{ index: 0, delta: { content: "lo" } }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { choices: [], usage: { prompt_tokens: 5, completion_tokens: 2 } },
]);

function agentWith(http: HttpOptions = {}) {
  const model = new OpenAIChatModel({
    model: "gpt-4o-mini",
    baseURL: `${server.url}/v1`,
    apiKey: KEY,
    http: { retry: { initialDelayMs: 5, maxDelayMs: 20 }, ...http },
  });
  return new Agent({ model, instructions: "Answer." });
}

async function run(stream: boolean, http?: HttpOptions, signal?: AbortSignal) {
  const events: AgentEvent[] = [];
  const agent = agentWith(http);
  const options = { onEvent: (e: AgentEvent) => events.push(e), ...(signal && { signal }) };
  try {
    const result = stream
      ? await agent.stream("Say hello", options).result
      : await agent.run("Say hello", options);
    return { events, result, error: undefined };
  } catch (error) {
    return { events, result: undefined, error: error as Error };
  }
}

describe("fault matrix", () => {
  it("429 with Retry-After: 1, then success: waits at least a second, one retry event", async () => {
    server.enqueue(
      {
        status: 429,
        headers: { "retry-after": "1" },
        json: { error: { message: "Rate limit reached", type: "requests" } },
      },
      { json: completion("Hello") },
    );
    const started = performance.now();
    const { result, events } = await run(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(result?.output).toBe("Hello");
    expect(ofType(events, "model_retry")).toMatchObject([{ attempt: 2, delayMs: 1000 }]);
    const requests = ofType(events, "model_request");
    expect(requests.map((r) => r.attempt)).toEqual([1, 2]);
    expect(JSON.stringify(requests[0]?.body)).toBe(server.requests[1]?.raw);
  });

  it("500 twice, then success", async () => {
    server.enqueue(
      { status: 500, json: { error: { message: "internal" } } },
      { status: 500, json: { error: { message: "internal" } } },
      { sse: textStream },
    );
    const { result, events } = await run(true);
    expect(result?.output).toBe("Hello");
    expect(ofType(events, "model_retry").map((e) => e.attempt)).toEqual([2, 3]);
    expect(server.requests).toHaveLength(3);
  });

  it("a connection reset mid-stream is a network error, not a hang and not a retry", async () => {
    server.enqueue({ sse: textStream, resetAt: textStream.indexOf("lo") });
    const { error, events } = await run(true);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ code: "network" });
    expect(ofType(events, "text_delta").map((e) => e.text)).toEqual(["Hel"]);
    expect(server.requests).toHaveLength(1);
  });

  it("a stream cut before [DONE] is a stream_incomplete error", async () => {
    server.enqueue({ sse: textStream, endAt: textStream.indexOf("data: [DONE]") });
    const { error } = await run(true);
    expect(error).toMatchObject({ code: "stream_incomplete" });
    expect(error?.message).toContain("[DONE]");
  });

  it("a malformed JSON chunk is a provider_protocol error", async () => {
    const broken = textStream.replace('{"content":"lo"}', '{"content":"lo"');
    server.enqueue({ sse: broken });
    const { error } = await run(true);
    expect(error).toMatchObject({ code: "provider_protocol" });
  });

  it("a stream chunk with tool_calls: [null] is a provider_protocol error, sent once, not retried", async () => {
    server.enqueue(
      ...[1, 2, 3].map(() => ({
        sse: sseData([{ choices: [{ index: 0, delta: { tool_calls: [null] } }] }]),
      })),
    );
    const { error, events } = await run(true);
    expect(error).toMatchObject({ code: "provider_protocol" });
    expect(error?.message).toContain("tool_calls");
    expect(ofType(events, "model_retry")).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("a completion with tool_calls: [null] is a provider_protocol error, sent once, not retried", async () => {
    const bad = {
      choices: [
        { index: 0, message: { role: "assistant", tool_calls: [null] }, finish_reason: "tool_calls" },
      ],
    };
    server.enqueue(...[1, 2, 3].map(() => ({ json: bad })));
    const { error } = await run(false);
    expect(error).toMatchObject({ code: "provider_protocol" });
    expect(server.requests).toHaveLength(1);
  });

  it("a first byte slower than the timeout is a request_timeout, after the retries", async () => {
    server.enqueue(...[1, 2, 3].map(() => ({ json: completion("late"), delayMs: 3_000 })));
    const started = performance.now();
    const { error, events } = await run(false, { timeoutMs: 150 });
    expect(error).toMatchObject({ code: "request_timeout" });
    expect(ofType(events, "model_retry")).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(2_500);
  });

  it("a stream that goes quiet after a delta is a stream_idle_timeout, not retried", async () => {
    // Quiet after "Hel" reached the caller (a stall before any delta would be retried).
    server.enqueue({ sse: textStream, stallAt: textStream.indexOf("data: {", textStream.indexOf('"Hel"')) });
    const { error, events } = await run(true, { streamIdleTimeoutMs: 150 });
    expect(error).toMatchObject({ code: "stream_idle_timeout" });
    expect(ofType(events, "text_delta").map((e) => e.text)).toEqual(["Hel"]);
    expect(server.requests).toHaveLength(1);
  });

  it("a stream that goes quiet before any delta is retried and then answers", async () => {
    server.enqueue({ sse: textStream, stallAt: textStream.indexOf("data: {", 10) }, { sse: textStream });
    const { error, events } = await run(true, { streamIdleTimeoutMs: 150 });
    expect(error).toBeUndefined();
    expect(ofType(events, "model_retry")).toHaveLength(1);
    expect(ofType(events, "text_delta").map((e) => e.text)).toEqual(["Hel", "lo"]);
  });

  it("401 is an AuthenticationError and the key is redacted everywhere", async () => {
    server.enqueue({
      status: 401,
      json: {
        error: {
          message: `Incorrect API key provided: ${KEY}.`,
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      },
    });
    const { error, events } = await run(false);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ code: "authentication" });
    expect((error as ModelCallError).cause).toBeInstanceOf(AuthenticationError);
    expect(error?.message).toContain("Incorrect API key provided: [REDACTED]");
    const cause = (error as ModelCallError).cause as AuthenticationError;
    const everything = JSON.stringify([
      events,
      error?.message,
      error?.stack,
      cause.message,
      cause.stack,
      cause.excerpt,
      cause.body,
    ]);
    expect(everything).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it("an overflow body is a ContextOverflowError", async () => {
    server.enqueue({
      status: 400,
      json: {
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 200000 tokens.",
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      },
    });
    const { error } = await run(true);
    expect(error).toMatchObject({ code: "context_overflow" });
    expect((error as ModelCallError).cause).toBeInstanceOf(ContextOverflowError);
  });

  it("an abort mid-stream ends the run at once", async () => {
    server.enqueue({ sse: textStream, stallAt: textStream.indexOf("lo") });
    const controller = new AbortController();
    const pending = run(true, {}, controller.signal);
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    setTimeout(() => controller.abort(), 50);
    const { error } = await pending;
    expect(error).toBeInstanceOf(RunAbortedError);
  });

  it("Groq's tool_use_failed without the recovery quirk is a plain 400, not retried", async () => {
    server.enqueue({
      status: 400,
      json: {
        error: {
          message: "Tool call validation failed",
          type: "invalid_request_error",
          code: "tool_use_failed",
          failed_generation: "{}",
        },
      },
    });
    const { error } = await run(false);
    expect(error).toMatchObject({ code: "provider_error" });
    expect(server.requests).toHaveLength(1);
  });

  it("a real capture re-sent after a 503 streams the same answer", async () => {
    server.enqueue({ status: 503, json: {} }, { sse: openaiCaptureSse("openai--openai-text") });
    const { result, events } = await run(true);
    expect(String(result?.output)).toMatch(/^\*\*Holiday Name:\*\*/);
    expect(
      ofType(events, "text_delta")
        .map((e) => e.text)
        .join(""),
    ).toBe(result?.output);
  });
});
