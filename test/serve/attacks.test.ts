import { randomUUID } from "node:crypto";
import { connect } from "node:net";
import type { UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import type { Model, ModelObserver, ModelRequest, ModelResponse } from "../../src/index.js";
import { startServer } from "../../src/serve/index.js";
import {
  ALICE,
  BOB,
  lastUser,
  lookup,
  modelOf,
  refund,
  SERVE_BACKENDS,
  type Served,
  serve,
  serveOn,
  TestChat,
  until,
} from "./harness.js";

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const as = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  ...extra,
});
const json = (token: string) => as(token, { "content-type": "application/json" });
const id = () => `call_${randomUUID().slice(0, 8)}`;

const support = () => ({
  tools: [lookup, refund],
  model: modelOf((messages) => {
    if (messages.at(-1)?.role === "tool") return { text: "done" };
    return lastUser(messages).includes("refund")
      ? { toolCalls: [{ id: id(), name: "refund", args: { order: "A", amount: 5 } }] }
      : { text: `secret plan for ${lastUser(messages)}` };
  })(),
});

/** Alice's chat paused on a refund approval: its run id and approval id. */
async function alicePaused(s: Served): Promise<{ runId: string; approvalId: string; chat: TestChat }> {
  const chat = new TestChat(s, { id: "shared-id", token: ALICE });
  await chat.sendMessage({ text: "refund A" });
  const part = chat.messages.at(-1)?.parts.find((p) => p.type === "tool-refund") as {
    approval: { id: string };
  };
  const meta = chat.messages.at(-1)?.metadata as { runId: string };
  return { runId: meta.runId, approvalId: part.approval.id, chat };
}

async function problem(res: Response) {
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = (await res.json()) as { code: string; detail: string; status: number };
  expect(JSON.stringify(body)).not.toMatch(/\n\s+at |\.ts:\d+/);
  return body;
}

for (const backend of SERVE_BACKENDS)
  describe.skipIf(backend.skip !== undefined)(
    `ownership: another principal's chats, runs and approvals (${backend.name})`,
    () => {
      it("bob can read, resume, approve or cancel none of alice's: every try is a 404 and changes nothing", async () => {
        served = await serveOn(backend, { agents: { support } });
        const { runId, approvalId } = await alicePaused(served);
        const f = served.fetch;
        for (const [method, path] of [
          ["GET", `/api/runs/${runId}`],
          ["GET", `/api/runs/${runId}/stream`],
          ["GET", `/api/runs/${runId}/steps/1`],
          ["POST", `/api/runs/${runId}/cancel`],
          ["GET", `/trace/api/runs/${runId}`],
          ["GET", "/api/chats/shared-id"],
        ] as const) {
          const res = await f(path, { method, headers: json(BOB), ...(method === "POST" && { body: "{}" }) });
          expect([path, res.status]).toEqual([path, 404]);
          expect((await problem(res)).code).toBe("not_found");
        }
        const approve = await f(`/api/runs/${runId}/approvals`, {
          method: "POST",
          headers: json(BOB),
          body: JSON.stringify({ decisions: [{ approvalId, approved: true }] }),
        });
        expect(approve.status).toBe(404);
        // The same chat id is bob's own, separate chat: nothing of alice's to resume there.
        expect((await f("/api/chat/shared-id/stream", { headers: as(BOB) })).status).toBe(204);
        // Bob answering alice's approval through his own chat of the same id: refused.
        const viaChat = await f("/api/chat", {
          method: "POST",
          headers: json(BOB),
          body: JSON.stringify({
            id: "shared-id",
            messages: [
              {
                id: "a",
                role: "assistant",
                parts: [
                  {
                    type: "tool-refund",
                    toolCallId: "x",
                    state: "approval-responded",
                    approval: { id: approvalId, approved: true },
                  },
                ],
              },
            ],
          }),
        });
        expect(viaChat.status).toBe(404);
        expect((await f("/api/chats", { headers: as(BOB) }).then((r) => r.json())) as unknown).toEqual({
          chats: [],
        });
        // Alice's run is still waiting, undecided.
        const run = (await (await f(`/api/runs/${runId}`, { headers: as(ALICE) })).json()) as {
          status: string;
        };
        expect(run.status).toBe("awaiting_approval");
      });

      it("a forged approval id is a 404; a decided one cannot be decided again (409)", async () => {
        served = await serveOn(backend, { agents: { support } });
        const { runId, approvalId } = await alicePaused(served);
        const decide = (approval: string, approved: boolean) =>
          served?.fetch(`/api/runs/${runId}/approvals`, {
            method: "POST",
            headers: json(ALICE),
            body: JSON.stringify({ decisions: [{ approvalId: approval, approved }] }),
          }) as Promise<Response>;
        expect((await decide(`appr_${"A".repeat(24)}`, true)).status).toBe(404);
        expect((await decide(approvalId, false)).status).toBe(202);
        expect((await decide(approvalId, true)).status).toBe(409);
        await until(async () => {
          const r = (await (await served?.fetch(`/api/runs/${runId}`, { headers: as(ALICE) }))?.json()) as {
            status: string;
          };
          return r.status === "ok";
        });
        const session = JSON.stringify(await served.store.readSession("serve:alice:shared-id"));
        expect(session).toContain("Not approved by the user.");
        expect(session).not.toContain("refunded 5");
      });
    },
  );

describe("requests a server must refuse", () => {
  it("no token, a wrong token: 401 with WWW-Authenticate; the login cookie works like the token", async () => {
    served = serve({ agents: { support } });
    const none = await served.fetch("/api/chats");
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await served.fetch("/api/chats", { headers: as("not-a-real-token-xxxxxxxx") })).status).toBe(401);
    const login = await served.fetch("/api/login", { method: "POST", headers: as(ALICE) });
    expect(login.status).toBe(204);
    const cookie = login.headers.get("set-cookie") as string;
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict; Path=\//);
    const me = await served.fetch("/api/me", { headers: { cookie: cookie.split(";")[0] as string } });
    expect(await me.json()).toEqual({ id: "alice" });
  });

  it("oversized bodies (by Content-Length and streamed), long messages, wrong types and bad JSON: 413/415/422 problems", async () => {
    served = serve({ agents: { support }, limits: { maxBodyBytes: 10_000, maxMessageChars: 100 } });
    const post = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = json(ALICE)) =>
      served?.fetch("/api/chat", {
        method: "POST",
        headers,
        body,
        duplex: "half",
      } as RequestInit) as Promise<Response>;
    const big = JSON.stringify({
      id: "c",
      messages: [{ role: "user", parts: [{ type: "text", text: "x".repeat(20_000) }] }],
    });
    expect((await problem(await post(big))).code).toBe("payload_too_large");
    const streamed = new ReadableStream({
      start(c) {
        for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode("x".repeat(1000)));
        c.close();
      },
    });
    expect((await post(streamed)).status).toBe(413);
    const long = JSON.stringify({
      id: "c",
      messages: [{ role: "user", parts: [{ type: "text", text: "y".repeat(101) }] }],
    });
    expect((await post(long)).status).toBe(413);
    expect((await post("{}", as(ALICE, { "content-type": "text/plain" }))).status).toBe(415);
    expect((await problem(await post("{not json"))).code).toBe("invalid_request");
    const bad = await problem(await post(JSON.stringify({ id: "../etc", messages: [] })));
    expect(bad.code).toBe("invalid_request");
    expect(
      (await served.fetch("/api/chats", { headers: as(ALICE) }).then((r) => r.json())) as unknown,
    ).toEqual({ chats: [] });
  });

  it("a foreign origin is refused before anything runs; an allowed one gets CORS headers", async () => {
    served = serve({ agents: { support }, cors: { origins: ["https://app.example"] } });
    const body = JSON.stringify({
      id: "c",
      messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }],
    });
    const evil = await served.fetch("/api/chat", {
      method: "POST",
      headers: { ...json(ALICE), origin: "https://evil.example" },
      body,
    });
    expect(evil.status).toBe(403);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await served.fetch("/api/chat", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(403);
    expect(
      (await served.fetch("/api/chats", { headers: as(ALICE) }).then((r) => r.json())) as unknown,
    ).toEqual({ chats: [] });
    const ok = await served.fetch("/api/chat", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const me = await served.fetch("/api/me", { headers: as(ALICE, { origin: "https://app.example" }) });
    expect(me.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });

  it("per-principal rate limits and concurrent-run limits answer 429 with Retry-After", async () => {
    served = serve({ agents: { support }, limits: { requestsPerMinute: 5 } });
    const codes: number[] = [];
    for (let i = 0; i < 7; i++) codes.push((await served.fetch("/api/me", { headers: as(ALICE) })).status);
    expect(codes).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const limited = await served.fetch("/api/me", { headers: as(ALICE) });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await served.fetch("/api/me", { headers: as(BOB) })).status).toBe(200);
  });

  it("model text with <script> and markdown links reaches the client as text, never markup", async () => {
    const hostile = "<script>alert(1)</script> [click](javascript:alert(2)) <img src=x onerror=alert(3)>";
    served = serve({ agents: { h: () => ({ model: modelOf(() => ({ text: hostile }))() }) } });
    const res = await served.fetch("/api/chat", {
      method: "POST",
      headers: json(ALICE),
      body: JSON.stringify({ id: "x", messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] }),
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const chat = new TestChat(served, { id: "y", token: ALICE });
    await chat.sendMessage({ text: "hi" });
    expect(chat.lastText).toBe(hostile); // a text part: the page renders it as a text node
    await res.text();
  });

  it("secrets in the server's environment are redacted from everything streamed", async () => {
    const secret = "sk-live-0123456789abcdefSECRET";
    served = serve({
      agents: { leak: () => ({ model: modelOf(() => ({ text: `the key is ${secret}` }))() }) },
      redaction: { secrets: [secret] },
    });
    const chat = new TestChat(served, { id: "leak", token: ALICE });
    await chat.sendMessage({ text: "tell me" });
    expect(chat.lastText).toBe("the key is [REDACTED]");
    const runId = (chat.messages.at(-1) as UIMessage & { metadata: { runId: string } }).metadata.runId;
    const step = await (await served.fetch(`/api/runs/${runId}/steps/1`, { headers: as(ALICE) })).text();
    expect(step).not.toContain(secret);
  });
});

/** A model that streams `chunks` deltas of `size` bytes as fast as the loop takes them. */
class FloodModel implements Model {
  readonly id = "flood:test";
  constructor(
    readonly chunks: number,
    readonly size: number,
  ) {}
  async generate(_request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    observer.onRequest({ body: { model: this.id }, attempt: 1 });
    const piece = "z".repeat(this.size - 1);
    for (let i = 0; i < this.chunks; i++) {
      observer.onDelta?.({ type: "text", text: `${piece} ` });
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    return {
      text: `${piece} `.repeat(this.chunks),
      toolCalls: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: "stop",
    };
  }
}

describe("a slow client that never reads", () => {
  it("takes only what its socket holds: the server reads no further while the run completes", async () => {
    served = serve({ agents: { flood: () => ({ model: new FloodModel(1_500, 10_000) }) } });
    const server = await startServer({ handler: served.handler });
    try {
      const body = JSON.stringify({
        id: "slow",
        messages: [{ role: "user", parts: [{ type: "text", text: "go" }] }],
      });
      const socket = connect(server.port, "127.0.0.1");
      await new Promise((r) => socket.once("connect", r));
      socket.pause(); // never read
      socket.write(
        `POST /api/chat HTTP/1.1\r\nhost: 127.0.0.1:${server.port}\r\nauthorization: Bearer ${ALICE}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // The run finishes (15 MB of text) while the client reads nothing.
      await until(async () => {
        const r = (await (await served?.fetch("/api/chats/slow", { headers: as(ALICE) }))?.json()) as {
          activeRun: unknown;
        };
        return r.activeRun === null;
      }, 60_000);
      await new Promise((r) => setTimeout(r, 200));
      const { bytesSent, streams } = served.handler.stats();
      expect(streams).toBe(1);
      // 15 MB were produced; the slow client's response took what the socket buffers hold (4.1 MB here).
      expect(bytesSent).toBeLessThan(8 * 1024 * 1024);
      socket.destroy();
      await until(() => served?.handler.stats().streams === 0);
      // A client that reads gets the whole answer, from the log.
      const fast = new TestChat(served, { id: "slow", token: ALICE });
      const loaded = (await (await served.fetch("/api/chats/slow", { headers: as(ALICE) })).json()) as {
        messages: UIMessage[];
      };
      const text = (loaded.messages.at(-1)?.parts ?? [])
        .filter((p) => p.type === "text")
        .map((p) => (p as { text: string }).text)
        .join("");
      expect(text.length).toBe(15_000_000);
      expect(fast.errors).toEqual([]);
    } finally {
      await server.close().catch(() => {});
      served = undefined;
    }
  });
});
