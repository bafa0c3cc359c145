/**
 * Bounded model calls, attacked as a hostile server would: a stream that never ends (keep-alive
 * comments, or a delta now and then, forever), a stream or a body larger than any answer, an
 * error body of megabytes. Each ends in a typed error with a `code`, in time, without retrying,
 * and without glassloop reading more than its cap. Caps and deadlines are set small here so the
 * tests are fast; each run also carries a 10 s abort, so a regression fails instead of hanging.
 */
import { Agent, type AgentEvent } from "glassloop";
import {
  AnthropicModel,
  CallDeadlineError,
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_RETRY,
  type HttpOptions,
  OpenAIChatModel,
  ResponseTooLargeError,
} from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ofType } from "../helpers/core.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const SSE = { "content-type": "text/event-stream" };
const JSON_TYPE = { "content-type": "application/json" };
const KIB = 1024;
const chunk = (delta: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
const fast = { retry: { initialDelayMs: 5, maxDelayMs: 10 } } satisfies HttpOptions;

async function run(model: OpenAIChatModel | AnthropicModel, stream: boolean) {
  const events: AgentEvent[] = [];
  const agent = new Agent({ model, instructions: "Answer." });
  const options = { onEvent: (e: AgentEvent) => events.push(e), signal: AbortSignal.timeout(10_000) };
  const started = performance.now();
  try {
    const result = stream ? await agent.stream("hi", options).result : await agent.run("hi", options);
    return { result, error: undefined, events, ms: performance.now() - started };
  } catch (error) {
    return {
      result: undefined,
      error: error as Error & { code: string },
      events,
      ms: performance.now() - started,
    };
  }
}

const openai = (http: HttpOptions) =>
  new OpenAIChatModel({
    model: "gpt-4o-mini",
    baseURL: `${server.url}/v1`,
    apiKey: "sk-bounds-test-key-123456",
    http: { ...fast, ...http },
  });
const anthropic = (http: HttpOptions) =>
  new AnthropicModel("claude-sonnet-4-5", {
    baseURL: server.url,
    apiKey: "ant-bounds-test-key",
    http: { ...fast, ...http },
  });

describe("no model call runs forever", () => {
  it("a stream of `: ping` comments forever ends at the call's deadline, not retried", async () => {
    // Every comment resets the idle timer: only a deadline nothing resets can end this.
    server.handler = () => ({ headers: SSE, drip: { piece: ": ping\n\n", everyMs: 20 } });
    // The idle timeout is well above the 20 ms between comments, so a loaded machine's pauses do not
    // end the stream by idleness first; the deadline must.
    const { error, ms } = await run(openai({ deadlineMs: 1_500, streamIdleTimeoutMs: 1_000 }), true);
    expect(error).toMatchObject({ code: "deadline_exceeded" });
    expect(error?.cause).toBeInstanceOf(CallDeadlineError);
    expect(error?.cause).toMatchObject({ timeoutMs: 1_500, kind: "deadline" });
    expect(ms).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
  });

  it("a delta every 50 ms forever ends at the deadline, the deltas seen so far delivered", async () => {
    server.handler = () => ({
      headers: SSE,
      drip: {
        head: chunk({ role: "assistant", content: "" }),
        piece: chunk({ content: "la " }),
        everyMs: 50,
      },
    });
    const { error, events } = await run(openai({ deadlineMs: 500 }), true);
    expect(error).toMatchObject({ code: "deadline_exceeded" });
    expect(ofType(events, "text_delta").length).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
  });

  it("Anthropic: `event: ping` forever ends at the deadline too", async () => {
    server.handler = () => ({
      headers: SSE,
      drip: { piece: 'event: ping\ndata: {"type":"ping"}\n\n', everyMs: 20 },
    });
    const { error } = await run(anthropic({ deadlineMs: 400 }), true);
    expect(error).toMatchObject({ code: "deadline_exceeded" });
    expect(server.requests).toHaveLength(1);
  });

  it("the deadline spans the retries: slow failures are not retried past it", async () => {
    server.handler = () => ({ status: 503, delayMs: 150, json: { error: { message: "busy" } } });
    const { error } = await run(
      openai({ deadlineMs: 400, retry: { maxRetries: 10, initialDelayMs: 5 } }),
      false,
    );
    // Ten retries of 150 ms each would take 1.5 s; the deadline allows about two attempts.
    expect(error?.code).toMatch(/^(deadline_exceeded|provider_error)$/);
    expect(server.requests.length).toBeLessThanOrEqual(3);
  });

  it("every call has a deadline and caps by default, and they are documented values", () => {
    expect([
      DEFAULT_DEADLINE_MS,
      DEFAULT_MAX_STREAM_BYTES,
      DEFAULT_MAX_RESPONSE_BYTES,
      DEFAULT_MAX_ERROR_BODY_BYTES,
    ]).toEqual([900_000, 64 * KIB * KIB, 8 * KIB * KIB, 64 * KIB]);
    expect(DEFAULT_RETRY.maxRetries).toBeGreaterThan(0);
  });
});

describe("no response is read past its cap", () => {
  it("a stream larger than maxStreamBytes (keep-alive padding) is a response_too_large error, not retried", async () => {
    // 100 MB would follow; glassloop stops at 64 KiB and drops the connection.
    server.handler = () => ({ headers: SSE, drip: { piece: `: ${"x".repeat(KIB)}\n\n`, times: 100_000 } });
    const { error, ms } = await run(openai({ maxStreamBytes: 64 * KIB }), true);
    expect(error).toMatchObject({ code: "response_too_large" });
    expect(error?.cause).toBeInstanceOf(ResponseTooLargeError);
    expect(error?.cause).toMatchObject({ part: "stream", limitBytes: 64 * KIB });
    expect(ms).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
  });

  it("a non-streamed body larger than maxResponseBytes is a response_too_large error, not retried", async () => {
    server.handler = () => ({
      headers: JSON_TYPE,
      drip: {
        head: '{"choices":[{"index":0,"message":{"role":"assistant","content":"',
        piece: "a".repeat(KIB),
        times: 100_000,
        tail: '"},"finish_reason":"stop"}]}',
      },
    });
    const { error } = await run(openai({ maxResponseBytes: 64 * KIB }), false);
    expect(error).toMatchObject({ code: "response_too_large" });
    expect(error?.cause).toMatchObject({ part: "body", limitBytes: 64 * KIB });
    expect(server.requests).toHaveLength(1);
  });

  it("a 500 whose error body is larger than maxErrorBodyBytes is refused and not retried", async () => {
    server.handler = () => ({
      status: 500,
      headers: JSON_TYPE,
      drip: { head: '{"error":{"message":"', piece: "e".repeat(KIB), times: 10_000, tail: '"}}' },
    });
    const { error } = await run(openai({ maxErrorBodyBytes: 4 * KIB }), false);
    expect(error).toMatchObject({ code: "response_too_large" });
    expect(error?.cause).toMatchObject({ part: "error_body", status: 500, limitBytes: 4 * KIB });
    expect(error?.message).toContain("HTTP 500");
    // A 500 is retried twice by default; a too-large one never is.
    expect(server.requests).toHaveLength(1);
  });

  it("Anthropic: an oversized error body on a stream request is refused the same way", async () => {
    server.handler = () => ({
      status: 529,
      headers: JSON_TYPE,
      drip: {
        head: '{"type":"error","error":{"type":"overloaded_error","message":"',
        piece: "o".repeat(KIB),
        times: 10_000,
        tail: '"}}',
      },
    });
    const { error } = await run(anthropic({ maxErrorBodyBytes: 4 * KIB }), true);
    expect(error).toMatchObject({ code: "response_too_large" });
    expect(server.requests).toHaveLength(1);
  });

  it("an answer under the caps still arrives whole", async () => {
    server.handler = () => ({
      headers: JSON_TYPE,
      drip: {
        head: '{"choices":[{"index":0,"message":{"role":"assistant","content":"',
        piece: "b".repeat(KIB),
        times: 32,
        tail: '"},"finish_reason":"stop"}]}',
      },
    });
    const { result } = await run(openai({ maxResponseBytes: 64 * KIB, deadlineMs: 5_000 }), false);
    expect(result?.output).toBe("b".repeat(32 * KIB));
  });
});
