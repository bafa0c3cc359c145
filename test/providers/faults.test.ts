/**
 * The fault matrix of test/providers/openai-faults.test.ts, run against the providers added later (the
 * OpenAI Responses API and Gemini): each speaks its own dialect of the same faults, and each fault
 * ends in success after retries or in a typed error, never in a hang, with the key nowhere.
 */
import {
  Agent,
  type AgentEvent,
  AuthenticationError,
  ContextOverflowError,
  type Model,
  ModelCallError,
  RunAbortedError,
} from "glassloop";
import { GeminiModel, type HttpOptions, OpenAIResponsesModel } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ofType } from "../helpers/core.js";
import { sseData, sseEvents, startWireServer, type WireServer } from "../helpers/wire-server.js";

const KEY = "sk-proj-fault-matrix-key-0123456789";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** How one provider says the things the matrix needs. */
interface Dialect {
  name: string;
  model(baseURL: string, http: HttpOptions): Model;
  /** A non-streamed answer "text". */
  completion(text: string): unknown;
  /** A streamed "Hel" + "lo" answer, its end marker last. */
  stream: string;
  /** Where the stream's end marker (or final event) begins: cutting there leaves it incomplete. */
  endAt: number;
  /** The error body of a bad key that echoes the key. */
  unauthorized: unknown;
  /** The error body of an over-long prompt. */
  overflow: { status: number; json: unknown };
  /** An error reported inside a stream after a delta. */
  streamError: string;
}

const responses: Dialect = {
  name: "openai-responses",
  model: (url, http) =>
    new OpenAIResponsesModel("gpt-5", { baseURL: `${url}/v1`, apiKey: KEY, http, env: {} }),
  completion: (text) => ({
    id: "resp_1",
    status: "completed",
    output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text }] }],
    usage: { input_tokens: 5, output_tokens: 2 },
  }),
  stream: sseEvents([
    { event: "response.created", data: { type: "response.created", response: { id: "resp_1", output: [] } } },
    {
      event: "response.output_text.delta",
      data: { type: "response.output_text.delta", output_index: 0, delta: "Hel" },
    },
    {
      event: "response.output_text.delta",
      data: { type: "response.output_text.delta", output_index: 0, delta: "lo" },
    },
    {
      event: "response.completed",
      data: {
        type: "response.completed",
        response: {
          id: "resp_1",
          status: "completed",
          output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "Hello" }] }],
          usage: { input_tokens: 5, output_tokens: 2 },
        },
      },
    },
  ]),
  get endAt() {
    return this.stream.indexOf("event: response.completed");
  },
  unauthorized: {
    error: {
      message: `Incorrect API key provided: ${KEY}.`,
      type: "invalid_request_error",
      code: "invalid_api_key",
    },
  },
  overflow: {
    status: 400,
    json: {
      error: {
        message: "Your input exceeds the context window of this model.",
        type: "invalid_request_error",
        code: "context_length_exceeded",
      },
    },
  },
  streamError: sseEvents([
    {
      event: "response.output_text.delta",
      data: { type: "response.output_text.delta", output_index: 0, delta: "Hel" },
    },
    { event: "error", data: { type: "error", code: "server_error", message: "The server had an error" } },
  ]),
};

const geminiChunk = (text: string, finishReason?: string) => ({
  candidates: [{ content: { role: "model", parts: [{ text }] }, ...(finishReason && { finishReason }) }],
  usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2 },
});
const geminiStream = sseData([geminiChunk("Hel"), geminiChunk("lo"), geminiChunk("", "STOP")], {
  done: false,
});

const gemini: Dialect = {
  name: "google",
  model: (url, http) =>
    new GeminiModel("gemini-2.5-flash", { baseURL: `${url}/v1beta`, apiKey: KEY, http, env: {} }),
  completion: (text) => geminiChunk(text, "STOP"),
  stream: geminiStream,
  // No end marker: a stream that stops before the chunk with the finish reason is incomplete.
  endAt: geminiStream.lastIndexOf("data: "),
  // Gemini answers a bad key with 400 INVALID_ARGUMENT and the reason API_KEY_INVALID.
  unauthorized: {
    error: {
      code: 400,
      message: `API key not valid: ${KEY}. Please pass a valid API key.`,
      status: "INVALID_ARGUMENT",
      details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }],
    },
  },
  overflow: {
    status: 400,
    json: {
      error: {
        code: 400,
        message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        status: "INVALID_ARGUMENT",
      },
    },
  },
  streamError: sseData(
    [geminiChunk("Hel"), { error: { code: 500, message: "Internal error", status: "INTERNAL" } }],
    {
      done: false,
    },
  ),
};

const DIALECTS: Dialect[] = [responses, gemini];

for (const dialect of DIALECTS) {
  async function run(stream: boolean, http: HttpOptions = {}, signal?: AbortSignal) {
    const events: AgentEvent[] = [];
    const model = dialect.model(server.url, { retry: { initialDelayMs: 5, maxDelayMs: 20 }, ...http });
    const agent = new Agent({ model, instructions: "Answer." });
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
  const offsetOf = (marker: string, from = 0) => dialect.stream.indexOf(marker, from);

  describe(`fault matrix: ${dialect.name}`, () => {
    it("429 with Retry-After: 1, then success: waits at least a second, one retry event", async () => {
      server.enqueue(
        { status: 429, headers: { "retry-after": "1" }, json: { error: { message: "Rate limit reached" } } },
        { json: dialect.completion("Hello") },
      );
      const started = performance.now();
      const { result, events } = await run(false);
      expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
      expect(result?.output).toBe("Hello");
      expect(ofType(events, "model_retry")).toMatchObject([{ attempt: 2, delayMs: 1000 }]);
    });

    it("500 twice, then a stream that answers", async () => {
      server.enqueue(
        { status: 500, json: { error: { message: "internal" } } },
        { status: 500, json: { error: { message: "internal" } } },
        { sse: dialect.stream },
      );
      const { result, events } = await run(true);
      expect(result?.output).toBe("Hello");
      expect(ofType(events, "model_retry").map((e) => e.attempt)).toEqual([2, 3]);
      expect(ofType(events, "text_delta").map((e) => e.text)).toEqual(["Hel", "lo"]);
    });

    it("a connection reset mid-stream is a network error, not a hang and not a retry", async () => {
      server.enqueue({ sse: dialect.stream, resetAt: offsetOf('"lo"') });
      const { error, events } = await run(true);
      expect(error).toMatchObject({ code: "network" });
      expect(ofType(events, "text_delta").map((e) => e.text)).toEqual(["Hel"]);
      expect(server.requests).toHaveLength(1);
    });

    it("a stream cut before its end is a stream_incomplete error", async () => {
      server.enqueue({ sse: dialect.stream, endAt: dialect.endAt });
      const { error } = await run(true);
      expect(error).toMatchObject({ code: "stream_incomplete" });
    });

    it("a malformed JSON event is a provider_protocol error", async () => {
      server.enqueue({ sse: dialect.stream.replace('"Hel"', '"Hel') });
      const { error } = await run(true);
      expect(error).toMatchObject({ code: "provider_protocol" });
    });

    it("a first byte slower than the timeout is a request_timeout, after the retries", async () => {
      server.enqueue(...[1, 2, 3].map(() => ({ json: dialect.completion("late"), delayMs: 3_000 })));
      const started = performance.now();
      const { error, events } = await run(false, { timeoutMs: 150 });
      expect(error).toMatchObject({ code: "request_timeout" });
      expect(ofType(events, "model_retry")).toHaveLength(2);
      expect(performance.now() - started).toBeLessThan(2_500);
    });

    it("a stream that goes quiet after a delta is a stream_idle_timeout, not retried", async () => {
      server.enqueue({ sse: dialect.stream, stallAt: offsetOf("data: {", offsetOf('"Hel"')) });
      const { error, events } = await run(true, { streamIdleTimeoutMs: 150 });
      expect(error).toMatchObject({ code: "stream_idle_timeout" });
      expect(ofType(events, "text_delta").map((e) => e.text)).toEqual(["Hel"]);
      expect(server.requests).toHaveLength(1);
    });

    it("a stream that goes quiet before any delta is retried and then answers", async () => {
      server.enqueue(
        { sse: dialect.stream, stallAt: Math.max(1, offsetOf('"Hel"') - 40) },
        { sse: dialect.stream },
      );
      const { error, events } = await run(true, { streamIdleTimeoutMs: 150 });
      expect(error).toBeUndefined();
      expect(ofType(events, "model_retry")).toHaveLength(1);
      expect(ofType(events, "text_delta").map((e) => e.text)).toEqual(["Hel", "lo"]);
    });

    it("a bad key (401, Gemini's 400 API_KEY_INVALID) is an AuthenticationError and the key is redacted everywhere", async () => {
      server.enqueue({ status: dialect.name === "google" ? 400 : 401, json: dialect.unauthorized });
      const { error, events } = await run(false);
      expect(error).toMatchObject({ code: "authentication" });
      const cause = (error as ModelCallError).cause as AuthenticationError;
      expect(cause).toBeInstanceOf(AuthenticationError);
      const everything = JSON.stringify([
        events,
        error?.message,
        error?.stack,
        cause.message,
        cause.excerpt,
        cause.body,
      ]);
      expect(everything).not.toContain(KEY);
      expect(server.requests).toHaveLength(1);
    });

    it("an overflow body is a ContextOverflowError, not retried", async () => {
      server.enqueue(dialect.overflow, dialect.overflow);
      const { error } = await run(true);
      expect(error).toMatchObject({ code: "context_overflow" });
      expect((error as ModelCallError).cause).toBeInstanceOf(ContextOverflowError);
      expect(server.requests).toHaveLength(1);
    });

    it("an error inside the stream after a delta is a typed error, not retried", async () => {
      server.enqueue({ sse: dialect.streamError }, { sse: dialect.stream });
      const { error, events } = await run(true);
      expect(error).toBeInstanceOf(ModelCallError);
      expect(ofType(events, "text_delta").map((e) => e.text)).toEqual(["Hel"]);
      expect(server.requests).toHaveLength(1);
    });

    it("an abort mid-stream ends the run at once", async () => {
      server.enqueue({ sse: dialect.stream, stallAt: offsetOf('"lo"') });
      const controller = new AbortController();
      const pending = run(true, {}, controller.signal);
      while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      setTimeout(() => controller.abort(), 50);
      const { error } = await pending;
      expect(error).toBeInstanceOf(RunAbortedError);
    });
  });
}
