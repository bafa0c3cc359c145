import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { resolveSourceFile } from "./download.js";
import type { NodeLlamaCpp } from "./engine.js";
import { parseLocalModelName } from "./name.js";

/** No engine needed: nothing is cached, and the probe fails before any download starts. */
const noCache = {
  resolveModelFile: async () => {
    throw new Error("not cached");
  },
} as unknown as NodeLlamaCpp;

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A host that accepts the connection and never answers: only the probe's own deadline ends the wait. */
async function silentEndpoint(): Promise<string> {
  const server = http.createServer(() => {});
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** Resolves a `hf:` file that is not cached, from `endpoint`, beside the caller's `signal`. */
function resolveFrom(endpoint: string, signal: AbortSignal, reachabilityTimeoutMs: number): Promise<string> {
  return resolveSourceFile(noCache, parseLocalModelName("hf:someone/tiny-GGUF/tiny.gguf"), {
    env: { HF_ENDPOINT: endpoint },
    cacheDir: "/nonexistent",
    onProgress: () => {},
    signal,
    reachabilityTimeoutMs,
  });
}

describe("resolveSourceFile: the reachability probe", () => {
  it("gives up on an endpoint that never answers, also beside the caller's signal and under allocation", async () => {
    const endpoint = await silentEndpoint();
    const caller = new AbortController();
    const resolving = resolveFrom(endpoint, caller.signal, 50);
    // Garbage made while waiting: the deadline must still fire (an AbortSignal.timeout inside any may not).
    const junk: unknown[] = [];
    for (let i = 0; i < 2e5; i++) junk.push({ i });
    await expect(resolving).rejects.toMatchObject({
      code: "local_download_failed",
      message: expect.stringMatching(/is unreachable \(.*no answer within 50 ms\)/),
    });
    expect(caller.signal.aborted).toBe(false);
  });

  it("the caller's abort wins over the probe's failure", async () => {
    const endpoint = await silentEndpoint();
    const caller = new AbortController();
    const resolving = resolveFrom(endpoint, caller.signal, 10_000);
    setTimeout(() => caller.abort(new Error("stop")), 20);
    await expect(resolving).rejects.toThrow("stop");
  });
});
