import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sseData, startWireServer, type WireServer } from "../../../test/helpers/wire-server.js";
import {
  AuthenticationError,
  ContextOverflowError,
  NetworkError,
  ProviderError,
  ProviderProtocolError,
  RateLimitError,
  RequestTimeoutError,
  StreamIdleTimeoutError,
} from "../errors.js";
import type { ModelDelta, ModelObserver } from "../model.js";
import { type HttpCall, type HttpOptions, postEvents, postJson } from "./transport.js";

const KEY = "sk-test-abcdefghijklmnop1234567890";
const FAST: HttpOptions = { retry: { initialDelayMs: 5, maxDelayMs: 20 } };

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

interface Seen {
  requests: { body: unknown; url?: string; attempt: number }[];
  retries: { attempt: number; delayMs: number; error: string }[];
}

function call(overrides: Partial<HttpCall> = {}): { call: HttpCall; seen: Seen } {
  const seen: Seen = { requests: [], retries: [] };
  const observer: ModelObserver = {
    onRequest: (wire) => seen.requests.push(wire),
    onRetry: (info) => seen.retries.push(info),
  };
  return {
    seen,
    call: {
      provider: "test",
      url: `${server.url}/v1/things`,
      headers: { authorization: `Bearer ${KEY}` },
      body: { hello: "wörld", n: [1, 2, 3] },
      signal: new AbortController().signal,
      observer,
      secrets: [KEY],
      ...overrides,
    },
  };
}

const ok = { json: { fine: true } };

describe("postJson", () => {
  it("sends the body once serialized, and the event carries exactly the bytes sent", async () => {
    server.enqueue(ok);
    const { call: c, seen } = call();
    const reply = await postJson(c, FAST);
    expect(reply.body).toEqual({ fine: true });
    expect(seen.requests).toHaveLength(1);
    expect(JSON.stringify(seen.requests[0]?.body)).toBe(server.requests[0]?.raw);
    expect(server.requests[0]?.headers["content-type"]).toBe("application/json");
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("429 with Retry-After: 1 waits at least a second, then succeeds", async () => {
    server.enqueue(
      { status: 429, headers: { "retry-after": "1" }, json: { error: { message: "slow" } } },
      ok,
    );
    const { call: c, seen } = call();
    const started = performance.now();
    const reply = await postJson(c, FAST);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(reply.body).toEqual({ fine: true });
    // maxAttempts lets the CLI say how many tries are left ("retrying in 1.0 s (2/3)").
    expect(seen.retries).toEqual([
      {
        attempt: 2,
        maxAttempts: 3,
        delayMs: 1000,
        error: expect.stringContaining("HTTP 429"),
        // The server's own wait and the typed failure, which a fallback chain and a rate limiter
        // decide on (never put in events).
        retryAfterMs: 1000,
        cause: expect.objectContaining({ code: "rate_limited", status: 429, retryAfterMs: 1000 }),
      },
    ]);
    expect(seen.requests.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it("honours retry-after-ms and an HTTP-date Retry-After", async () => {
    const date = new Date(Date.now() + 2_000).toUTCString();
    server.enqueue(
      { status: 503, headers: { "retry-after-ms": "30" }, json: {} },
      { status: 529, headers: { "retry-after": date }, json: {} },
      ok,
    );
    const { call: c, seen } = call();
    await postJson(c, { retry: { maxRetries: 2, maxRetryAfterMs: 60_000 }, timeoutMs: 10_000 });
    expect(seen.retries[0]?.delayMs).toBe(30);
    expect(seen.retries[1]?.delayMs).toBeGreaterThan(500);
    expect(seen.retries[1]?.delayMs).toBeLessThanOrEqual(2_000);
  }, 10_000);

  it("500 twice then success: two retry events, three attempts", async () => {
    server.enqueue(
      { status: 500, json: { error: { message: "boom" } } },
      { status: 502, text: "bad gw" },
      ok,
    );
    const { call: c, seen } = call();
    await expect(postJson(c, FAST)).resolves.toMatchObject({ body: { fine: true } });
    expect(seen.retries.map((r) => r.attempt)).toEqual([2, 3]);
    expect(server.requests).toHaveLength(3);
  });

  it("gives up after maxRetries with the last error", async () => {
    for (let i = 0; i < 3; i++) server.enqueue({ status: 500, json: { error: { message: `boom ${i}` } } });
    const { call: c } = call();
    const error = await postJson(c, FAST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      code: "provider_error",
      status: 500,
      message: expect.stringContaining("boom 2"),
    });
    expect(server.requests).toHaveLength(3);
  });

  it.each([400, 401, 403, 404, 422])("never retries %i", async (status) => {
    server.enqueue({ status, json: { error: { message: "no" } } });
    const { call: c, seen } = call();
    await expect(postJson(c, FAST)).rejects.toBeInstanceOf(ProviderError);
    expect(server.requests).toHaveLength(1);
    expect(seen.retries).toEqual([]);
  });

  it("401 becomes an AuthenticationError and the key appears nowhere", async () => {
    server.enqueue({
      status: 401,
      json: {
        error: {
          message: `Incorrect API key provided: ${KEY}. Header was Bearer ${KEY}`,
          code: "invalid_api_key",
        },
      },
    });
    const { call: c, seen } = call({ url: `${server.url}/v1/things?key=${KEY}` });
    const error = (await postJson(c, FAST).catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBe("authentication");
    expect(error.message).toContain("[REDACTED]");
    const everything = JSON.stringify([error.message, error.excerpt, error.body, error.stack, seen]);
    expect(everything).not.toContain(KEY);
    expect(seen.requests[0]?.url).toBe(`${server.url}/v1/things?key=[REDACTED]`);
  });

  it("an overflow body becomes a ContextOverflowError (OpenAI and Anthropic shapes)", async () => {
    server.enqueue(
      {
        status: 400,
        json: {
          error: {
            message:
              "This model's maximum context length is 128000 tokens. However, you requested 130000 tokens.",
            type: "invalid_request_error",
            code: "context_length_exceeded",
          },
        },
      },
      {
        status: 400,
        json: {
          type: "error",
          error: {
            type: "invalid_request_error",
            message: "prompt is too long: 208310 tokens > 200000 maximum",
          },
        },
      },
    );
    for (let i = 0; i < 2; i++) {
      const error = await postJson(call().call, FAST).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContextOverflowError);
      expect(error).toMatchObject({ code: "context_overflow", status: 400 });
    }
    expect(server.requests).toHaveLength(2);
  });

  it("a Retry-After beyond the cap is not waited for: RateLimitError carries it", async () => {
    server.enqueue({
      status: 429,
      headers: { "retry-after": "3600" },
      json: { error: { message: "later" } },
    });
    const error = (await postJson(call().call, FAST).catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfterMs).toBe(3_600_000);
    expect(server.requests).toHaveLength(1);
  });

  it("x-should-retry: false overrides a retryable status", async () => {
    server.enqueue({ status: 503, headers: { "x-should-retry": "false" }, json: {} });
    await expect(postJson(call().call, FAST)).rejects.toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
  });

  it("a reset connection is retried, then reported as a NetworkError", async () => {
    server.enqueue({ reset: true }, { reset: true }, { reset: true });
    const { call: c, seen } = call();
    const error = await postJson(c, FAST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(seen.retries).toHaveLength(2);
    server.enqueue({ reset: true }, ok);
    await expect(postJson(call().call, FAST)).resolves.toMatchObject({ body: { fine: true } });
  });

  it("a first byte slower than the timeout is a RequestTimeoutError", async () => {
    server.enqueue({ ...ok, delayMs: 2_000 });
    const started = performance.now();
    const error = await postJson(call().call, { ...FAST, timeoutMs: 100, retry: { maxRetries: 0 } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error).toMatchObject({ code: "request_timeout", timeoutMs: 100 });
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("a body that is not JSON is a typed protocol error", async () => {
    server.enqueue({ text: "<html>gateway</html>", headers: { "content-type": "text/html" } });
    await expect(postJson(call().call, FAST)).rejects.toBeInstanceOf(ProviderProtocolError);
  });

  it("the caller's abort ends a slow request, a retry wait, and never retries", async () => {
    const controller = new AbortController();
    server.enqueue({ ...ok, delayMs: 5_000 });
    const pending = postJson(call({ signal: controller.signal }).call, FAST);
    setTimeout(() => controller.abort(new Error("stop now")), 50);
    await expect(pending).rejects.toThrow("stop now");

    const second = new AbortController();
    server.enqueue({ status: 429, headers: { "retry-after": "30" }, json: {} });
    const { call: c, seen } = call({ signal: second.signal });
    const waiting = postJson(c, { retry: { maxRetryAfterMs: 60_000 } });
    while (seen.retries.length === 0) await new Promise((r) => setTimeout(r, 5));
    second.abort(new Error("gave up waiting"));
    await expect(waiting).rejects.toThrow("gave up waiting");

    const already = AbortSignal.abort(new Error("before start"));
    await expect(postJson(call({ signal: already }).call, FAST)).rejects.toThrow("before start");
  });
});

describe("postEvents", () => {
  const body = sseData([{ n: 1 }, { n: 2 }, { n: 3 }]);
  // Each event is also reported as a text delta, as a provider's handler would report content.
  const collect = (out: string[]) => (deliver: (delta: ModelDelta) => void) => (event: { data: string }) => {
    out.push(event.data);
    deliver({ type: "text", text: event.data });
    return event.data === "[DONE]";
  };
  const silent = () => () => undefined;

  it("feeds events and reports completion at the end marker", async () => {
    server.enqueue({ sse: body, split: [3, 17, 18, 40] });
    const out: string[] = [];
    const end = await postEvents(call().call, collect(out), FAST);
    expect(end.complete).toBe(true);
    expect(out).toEqual(['{"n":1}', '{"n":2}', '{"n":3}', "[DONE]"]);
  });

  it("a stream that ends early resolves incomplete", async () => {
    server.enqueue({ sse: body, endAt: body.indexOf("[DONE]") });
    const out: string[] = [];
    const end = await postEvents(call().call, collect(out), FAST);
    expect(end.complete).toBe(false);
    expect(out).toHaveLength(3);
  });

  it("a reset mid-stream is a NetworkError and is not retried after a delta was delivered", async () => {
    server.enqueue({ sse: body, resetAt: 20 });
    const out: string[] = [];
    const error = await postEvents(call().call, collect(out), FAST).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain("stream broke off");
    expect(server.requests).toHaveLength(1);
  });

  it("a stalled stream ends in a StreamIdleTimeoutError", async () => {
    server.enqueue({ sse: body, stallAt: 20 });
    const error = await postEvents(call().call, collect([]), { ...FAST, streamIdleTimeoutMs: 100 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StreamIdleTimeoutError);
    expect(error).toMatchObject({ code: "stream_idle_timeout" });
  });

  it("a stall before the first event is retried", async () => {
    server.enqueue({ sse: body, stallAt: 0 }, { sse: body });
    const out: string[] = [];
    const { call: c, seen } = call();
    await postEvents(c, collect(out), { ...FAST, streamIdleTimeoutMs: 100 });
    expect(seen.retries).toHaveLength(1);
    expect(out).toHaveLength(4);
  });

  it("the caller's abort ends a stalled stream at once", async () => {
    server.enqueue({ sse: body, stallAt: 20 });
    const controller = new AbortController();
    const pending = postEvents(call({ signal: controller.signal }).call, silent, FAST);
    setTimeout(() => controller.abort(new Error("enough")), 50);
    await expect(pending).rejects.toThrow("enough");
  });

  it("a reset after events but before any delta is retried, with a fresh handler", async () => {
    server.enqueue({ sse: body, resetAt: 20 }, { sse: body });
    const { call: c, seen } = call();
    const handlers: string[][] = [];
    const end = await postEvents(
      c,
      (deliver) => {
        const events: string[] = [];
        handlers.push(events);
        return (event) => {
          events.push(event.data);
          // Only the end marker counts as content here: nothing reaches the caller before it.
          if (event.data === "[DONE]") deliver({ type: "text", text: "done" });
          return event.data === "[DONE]";
        };
      },
      FAST,
    );
    expect(end.complete).toBe(true);
    expect(handlers).toEqual([['{"n":1}'], ['{"n":1}', '{"n":2}', '{"n":3}', "[DONE]"]]);
    expect(seen.retries).toHaveLength(1);
    expect(seen.requests.map((r) => r.attempt)).toEqual([1, 2]);
    expect(seen.requests[1]?.body).toBe(seen.requests[0]?.body);
  });

  it("a retryable status error the handler throws before any delta is retried; after one, it is not", async () => {
    const overloaded = () =>
      new ProviderError("provider_error", "test reported an error: overloaded", {
        provider: "test",
        status: 529,
      });
    server.enqueue({ sse: body }, { sse: body });
    const { call: c, seen } = call();
    let attempts = 0;
    const end = await postEvents(
      c,
      () => {
        attempts++;
        const first = attempts === 1;
        return (event) => {
          if (first) throw overloaded();
          return event.data === "[DONE]";
        };
      },
      FAST,
    );
    expect(end.complete).toBe(true);
    expect(seen.retries).toEqual([
      expect.objectContaining({ attempt: 2, error: expect.stringMatching(/overloaded/) }),
    ]);

    server.reset();
    server.enqueue({ sse: body }, { sse: body });
    const late = await postEvents(
      call().call,
      (deliver) => (event) => {
        if (event.data === '{"n":2}') throw overloaded();
        deliver({ type: "text", text: event.data });
        return false;
      },
      FAST,
    ).catch((e: unknown) => e);
    expect(late).toMatchObject({ status: 529 });
    expect(server.requests).toHaveLength(1);
  });

  it("an error the handler throws ends the stream, typed and unretried", async () => {
    server.enqueue({ sse: body });
    const error = await postEvents(
      call().call,
      () => () => {
        throw new Error(`bad chunk near ${KEY}`);
      },
      FAST,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderProtocolError);
    expect((error as Error).message).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it("an error status on a streaming request is classified like any other", async () => {
    server.enqueue({ status: 401, json: { error: { message: "bad key" } } });
    await expect(postEvents(call().call, silent, FAST)).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("a JSON error body with status 200 on a streaming request is an error, not silence", async () => {
    server.enqueue({ json: { error: { message: "model not loaded" } } });
    await expect(postEvents(call().call, silent, FAST)).rejects.toThrow("model not loaded");
  });
});
