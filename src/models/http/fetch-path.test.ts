import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sseData, startWireServer, type WireServer } from "../../../test/helpers/wire-server.js";
import {
  AuthenticationError,
  NetworkError,
  ProviderProtocolError,
  RequestTimeoutError,
  ResponseTooLargeError,
  StreamIdleTimeoutError,
} from "../errors.js";
import type { ModelDelta } from "../model.js";
import { type HttpCall, type HttpOptions, postEvents, postJson } from "./transport.js";

// The `fetch` option routes calls through a fetch instead of node:http: the same guarantees hold.
const KEY = "sk-test-abcdefghijklmnop1234567890";
let fetched = 0;
const countingFetch: typeof globalThis.fetch = (input, init) => {
  fetched++;
  return globalThis.fetch(input, init);
};
const VIA_FETCH: HttpOptions = { retry: { initialDelayMs: 5, maxDelayMs: 20 }, fetch: countingFetch };

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  fetched = 0;
});

function call(overrides: Partial<HttpCall> = {}): HttpCall {
  return {
    provider: "test",
    url: `${server.url}/v1/things`,
    headers: { authorization: `Bearer ${KEY}` },
    body: { hello: "wörld" },
    signal: new AbortController().signal,
    observer: { onRequest: () => {} },
    secrets: [KEY],
    ...overrides,
  };
}

const events = sseData([{ n: 1 }, { n: 2 }]);
const collect = (out: string[]) => (deliver: (delta: ModelDelta) => void) => (event: { data: string }) => {
  out.push(event.data);
  deliver({ type: "text", text: event.data });
  return event.data === "[DONE]";
};

describe("the fetch option", () => {
  it("carries JSON calls and their headers through the given fetch", async () => {
    server.enqueue({ json: { fine: true }, headers: { "x-request-id": "r1" } });
    const reply = await postJson(call(), VIA_FETCH);
    expect(reply.body).toEqual({ fine: true });
    expect(reply.headers.get("x-request-id")).toBe("r1");
    expect(fetched).toBe(1);
    expect(server.requests[0]?.raw).toBe('{"hello":"wörld"}');
  });

  it("carries streams through the given fetch, to the end marker", async () => {
    server.enqueue({ sse: events, split: [5, 20] });
    const out: string[] = [];
    const end = await postEvents(call(), collect(out), VIA_FETCH);
    expect(end.complete).toBe(true);
    expect(out).toEqual(['{"n":1}', '{"n":2}', "[DONE]"]);
    expect(fetched).toBe(1);
  });

  it("keeps the retries, the typed errors and the redaction", async () => {
    server.enqueue({ status: 500, json: { error: { message: "boom" } } }, { json: { fine: true } });
    expect((await postJson(call(), VIA_FETCH)).body).toEqual({ fine: true });
    expect(fetched).toBe(2);
    server.enqueue({ status: 401, json: { error: { message: `bad key ${KEY}` } } });
    const error = await postJson(call(), VIA_FETCH).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(JSON.stringify(error)).not.toContain(KEY);
    expect((error as Error).message).not.toContain(KEY);
  });

  it("keeps the request timeout, the idle timeout and the caller's abort", async () => {
    server.enqueue({ json: {}, delayMs: 500 });
    const slow = await postJson(call(), { ...VIA_FETCH, timeoutMs: 50, retry: { maxRetries: 0 } }).catch(
      (e: unknown) => e,
    );
    expect(slow).toBeInstanceOf(RequestTimeoutError);
    server.enqueue({ sse: events, stallAt: 12 });
    const stalled = await postEvents(call(), collect([]), {
      ...VIA_FETCH,
      streamIdleTimeoutMs: 50,
      retry: { maxRetries: 0 },
    }).catch((e: unknown) => e);
    expect(stalled).toBeInstanceOf(StreamIdleTimeoutError);
    server.enqueue({ sse: events, stallAt: 12 });
    const controller = new AbortController();
    const pending = postEvents(call({ signal: controller.signal }), collect([]), VIA_FETCH);
    setTimeout(() => controller.abort(new Error("enough")), 30);
    await expect(pending).rejects.toThrow("enough");
  });

  it("keeps the caps, the redirect refusal and the network errors", async () => {
    server.enqueue({ json: { big: "x".repeat(2000) } });
    const big = await postJson(call(), { ...VIA_FETCH, maxResponseBytes: 100 }).catch((e: unknown) => e);
    expect(big).toBeInstanceOf(ResponseTooLargeError);
    server.enqueue({ status: 307, text: "", headers: { location: "http://127.0.0.1:1/elsewhere" } });
    const moved = await postJson(call(), VIA_FETCH).catch((e: unknown) => e);
    expect(moved).toBeInstanceOf(ProviderProtocolError);
    server.enqueue({ reset: true }, { reset: true }, { reset: true });
    const reset = await postJson(call(), VIA_FETCH).catch((e: unknown) => e);
    expect(reset).toBeInstanceOf(NetworkError);
  });
});
