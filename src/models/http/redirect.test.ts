import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startWireServer, type WireServer } from "../../../test/helpers/wire-server.js";
import { ProviderProtocolError } from "../errors.js";
import { type HttpCall, postEvents, postJson } from "./transport.js";

const KEY = "g-test-abcdefghijklmnop1234567890";

let server: WireServer;
let elsewhere: WireServer;
beforeAll(async () => {
  server = await startWireServer();
  elsewhere = await startWireServer();
});
afterAll(async () => {
  await server.close();
  await elsewhere.close();
});
beforeEach(() => {
  server.reset();
  elsewhere.reset();
});

function call(): HttpCall {
  return {
    provider: "test",
    url: `${server.url}/v1/models/m:generateContent`,
    // A key header fetch would carry along on a redirect (it drops only `authorization`).
    headers: { "x-goog-api-key": KEY },
    body: { contents: [] },
    signal: new AbortController().signal,
    observer: { onRequest: () => {} },
    secrets: [KEY],
  };
}

describe("a redirect from the model's server", () => {
  for (const status of [301, 302, 307, 308]) {
    it(`${status} is not followed: one request, a protocol error naming the host, not retried, the key sent nowhere else`, async () => {
      const location = `${elsewhere.url}/v1/models/m:generateContent`;
      server.enqueue({ status, headers: { location }, text: "" });
      const error = await postJson(call(), { retry: { initialDelayMs: 1 } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderProtocolError);
      expect(error).toMatchObject({ code: "provider_protocol" });
      expect((error as Error).message).toContain(`${new URL(server.url).host} answered with a redirect`);
      expect((error as Error).message).not.toContain(KEY);
      expect(server.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    });
  }

  it("on a streaming request is the same error, before any event is read", async () => {
    server.enqueue({ status: 307, headers: { location: `${elsewhere.url}/v1/stream` }, text: "" });
    let opened = 0;
    const error = await postEvents(
      call(),
      () => {
        opened++;
        return () => true;
      },
      { retry: { initialDelayMs: 1 } },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderProtocolError);
    expect((error as Error).message).toMatch(/answered with a redirect, which is not followed/);
    expect(opened).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(elsewhere.requests).toHaveLength(0);
  });
});
