import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPost, type PostInit, postWithNode, resetEnvProxy } from "./node-post.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let url: string;
let handler: Handler = (_req, res) => res.end();
const seen: { port: number | undefined; headers: IncomingMessage["headers"]; body: string }[] = [];
let closedEarly = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      seen.push({ port: req.socket.remotePort, headers: req.headers, body: Buffer.concat(parts).toString() });
      res.on("close", () => {
        if (!res.writableFinished) closedEarly++;
      });
      handler(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/things`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function init(overrides: Partial<PostInit> = {}): PostInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: '{"hello":"wörld"}',
    signal: new AbortController().signal,
    redirect: "error",
    ...overrides,
  };
}

const until = async (check: () => boolean) => {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
};

describe("postWithNode", () => {
  it("answers like fetch (status, headers, body), sends the body and headers, and keeps the connection alive", async () => {
    seen.length = 0;
    handler = (_req, res) => {
      res.writeHead(201, { "content-type": "application/json", "x-request-id": "r1" });
      res.end('{"ok":"✓"}');
    };
    const first = await postWithNode(url, init());
    expect(first.status).toBe(201);
    expect(first.ok).toBe(true);
    expect(first.headers.get("x-request-id")).toBe("r1");
    expect(await first.json()).toEqual({ ok: "✓" });
    const second = await postWithNode(url, init());
    expect(await second.text()).toBe('{"ok":"✓"}');
    expect(seen[0]?.body).toBe('{"hello":"wörld"}');
    expect(seen[0]?.headers).toMatchObject({
      "content-type": "application/json",
      authorization: "Bearer k",
      "content-length": String(Buffer.byteLength('{"hello":"wörld"}')),
    });
    // The second call went over the first one's socket.
    expect(seen[1]?.port).toBe(seen[0]?.port);
  });

  it("decodes a gzip answer, as fetch does", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync('{"packed":true}'));
    };
    expect(await (await postWithNode(url, init())).json()).toEqual({ packed: true });
  });

  it("decodes deflate and br answers too (the encodings fetch decodes)", async () => {
    for (const [coding, pack] of [
      ["deflate", deflateSync],
      ["br", brotliCompressSync],
    ] as const) {
      handler = (_req, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-encoding": coding });
        res.end(pack(`{"coding":"${coding}"}`));
      };
      expect(await (await postWithNode(url, init())).json()).toEqual({ coding });
    }
  });

  it("sends fetch's default accept-encoding and user-agent, and the caller's own headers of those names win", async () => {
    seen.length = 0;
    handler = (_req, res) => res.end("{}");
    await (await postWithNode(url, init())).text();
    await (
      await postWithNode(
        url,
        init({ headers: { "user-agent": "glassloop-test", "accept-encoding": "identity" } }),
      )
    ).text();
    expect(seen.map((s) => [s.headers["user-agent"], s.headers["accept-encoding"]])).toEqual([
      ["node", "gzip, deflate"],
      ["glassloop-test", "identity"],
    ]);
  });

  it("reads the body only as fast as it is consumed: an unread body leaves the server blocked, not buffered here", async () => {
    // 64 MiB offered, far past the kernel's socket buffers: were the body read into memory
    // regardless of its reader, the server would finish writing it.
    let finished = false;
    let offered = 0;
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.on("finish", () => (finished = true));
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = () => {
        while (offered < 64 * 1024 * 1024) {
          offered += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    };
    const answer = await postWithNode(url, init());
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(finished).toBe(false);
    expect(offered).toBeLessThan(64 * 1024 * 1024);
    await reader.cancel();
  });

  it("a gzip answer cut short or corrupt errors the body instead of crashing", async () => {
    const packed = gzipSync(JSON.stringify({ long: "x".repeat(5000) }));
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(packed.subarray(0, packed.length - 20));
    };
    await expect((await postWithNode(url, init())).text()).rejects.toThrow();
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end("not gzip at all");
    };
    await expect((await postWithNode(url, init())).text()).rejects.toThrow();
  });

  it("a 204 answer has no body", async () => {
    handler = (_req, res) => {
      res.writeHead(204);
      res.end();
    };
    const answer = await postWithNode(url, init());
    expect(answer.status).toBe(204);
    expect(answer.body).toBeNull();
  });

  it("an abort before the headers rejects with the signal's reason and drops the connection", async () => {
    closedEarly = 0;
    seen.length = 0;
    handler = () => {}; // never answers
    const controller = new AbortController();
    const pending = postWithNode(url, init({ signal: controller.signal }));
    await until(() => seen.length > 0);
    const reason = new Error("request timeout");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await until(() => closedEarly === 1);
  });

  it("an abort after the headers errors the body with the signal's reason", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: 1\n\n");
    };
    const controller = new AbortController();
    const answer = await postWithNode(url, init({ signal: controller.signal }));
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect(Buffer.from((await reader.read()).value ?? []).toString()).toBe("data: 1\n\n");
    const reason = new Error("stream_idle timeout");
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
  });

  it("a connection cut mid-body errors the body with ECONNRESET", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"half":');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const answer = await postWithNode(url, init());
    const error = await answer.text().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ECONNRESET" });
  });

  it("a redirect is refused with the rejection fetch gives under redirect: error", async () => {
    handler = (_req, res) => {
      res.writeHead(307, { location: "http://127.0.0.1:1/elsewhere" });
      res.end();
    };
    const error = await postWithNode(url, init()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).cause).toMatchObject({ message: "unexpected redirect" });
  });

  it("an invalid header value is a TypeError and nothing is sent", async () => {
    seen.length = 0;
    const error = await postWithNode(url, init({ headers: { "x-bad": "a\r\nb" } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(seen).toHaveLength(0);
  });

  it("an already aborted signal rejects at once", async () => {
    const reason = new Error("before start");
    await expect(postWithNode(url, init({ signal: AbortSignal.abort(reason) }))).rejects.toBe(reason);
  });
});

describe("defaultPost", () => {
  const key = Symbol.for("undici.globalDispatcher.1");
  const global = globalThis as Record<symbol, unknown>;

  it("is node:http unless a proxy or mock dispatcher is installed globally or NODE_USE_ENV_PROXY is set", () => {
    const before = global[key];
    try {
      class Agent {}
      global[key] = new Agent();
      expect(defaultPost()).toBe(postWithNode);
      class ProxyAgent {}
      global[key] = new ProxyAgent();
      expect(defaultPost()).toBe(globalThis.fetch);
      global[key] = before;
      process.env.NODE_USE_ENV_PROXY = "1";
      resetEnvProxy();
      expect(defaultPost()).toBe(globalThis.fetch);
    } finally {
      global[key] = before;
      delete process.env.NODE_USE_ENV_PROXY;
      resetEnvProxy();
    }
    expect(defaultPost()).toBe(postWithNode);
  });
});
