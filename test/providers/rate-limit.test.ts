/**
 * Client-side rate limits: one limiter per provider and key, shared by every run in the process.
 * Counted at a local Chat Completions server (arrival times) with a short window so the test is
 * fast; token limits with known token counts; tightening from a provider's 429 headers.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { Agent, type AgentEvent, RateLimitError, tool } from "glassloop";
import { OpenAIChatModel, RateLimiter, rateLimited, setRateLimits } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { chatJson } from "../helpers/openai-replies.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
const arrivals: number[] = [];
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  arrivals.length = 0;
  // A run's first request asks for the tool; the request carrying its result gets the answer.
  server.handler = (request) => {
    arrivals.push(performance.now());
    const body = request.body as { messages: { role: string }[] };
    return body.messages.some((m) => m.role === "tool")
      ? chatJson({ text: "done", usage: { prompt_tokens: 20, completion_tokens: 5 } })
      : chatJson({
          toolCalls: [{ id: "c1", name: "noop", arguments: "{}" }],
          usage: { prompt_tokens: 20, completion_tokens: 5 },
        });
  };
});

const noop = tool({ name: "noop", description: "Does nothing.", input: z.object({}), run: () => "ok" });
const openai = (name = "gpt-4o-mini") =>
  new OpenAIChatModel({ model: name, baseURL: `${server.url}/v1`, apiKey: "sk-rate-limit-key-0123456789" });

/** The most arrivals inside any span of `spanMs`. */
function busiest(times: number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while ((sorted[j] as number) - (sorted[i] as number) >= spanMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

// The counting server runs in a process of its own: in this one, 50 runs keep the event loop so
// busy that arrival times would measure the congestion, not the client.
const COUNTING_SERVER = `
import { createServer } from "node:http";
const arrivals = [];
const answer = (body) => JSON.stringify({ id: "x", object: "chat.completion", created: 1, model: "gpt-4o-mini",
  choices: [{ index: 0, finish_reason: body.tool_calls ? "tool_calls" : "stop", message: { role: "assistant", ...body } }],
  usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25 } });
const server = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  let text = "";
  req.on("data", (d) => { text += d; });
  req.on("end", () => {
    if (req.method === "GET") { res.end(JSON.stringify(arrivals)); return; }
    arrivals.push(at);
    const done = JSON.parse(text).messages.some((m) => m.role === "tool");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(answer(done ? { content: "done" } : { content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "noop", arguments: "{}" } }] }));
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

async function countingServer(): Promise<{
  url: string;
  arrivals(): Promise<number[]>;
  child: ChildProcess;
}> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", COUNTING_SERVER], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<string>((resolve) =>
    child.stdout?.once("data", (d: Buffer) => resolve(d.toString().trim())),
  );
  const url = `http://127.0.0.1:${port}`;
  return { url, child, arrivals: async () => (await (await fetch(`${url}/arrivals`)).json()) as number[] };
}

describe("a rate limit shared by every run in the process", () => {
  it("50 concurrent runs (100 requests) sharing 60 requests per window never send more than 60 in one", async () => {
    const counting = await countingServer();
    const windowMs = 1_500;
    const model = rateLimited(
      new OpenAIChatModel({
        model: "gpt-4o-mini",
        baseURL: `${counting.url}/v1`,
        apiKey: "sk-rate-limit-key-0123456789",
      }),
      { key: "openai:shared-test", rpm: 60, windowMs, maxWaitMs: 5_000 },
    );
    const events: AgentEvent[] = [];
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        new Agent({ model, tools: [noop] }).run("go", { onEvent: (e) => events.push(e) }),
      ),
    );
    const elapsed = performance.now() - started;
    const seen = await counting.arrivals();
    counting.child.kill();
    expect(results.every((r) => r.output === "done")).toBe(true);
    expect(seen).toHaveLength(100);
    // Counted where it matters, at the server, strictly: the limiter counts each request from the
    // moment its answer arrived (the server saw it before), so a busy client cannot squeeze more in.
    expect(busiest(seen, windowMs)).toBeLessThanOrEqual(60);
    expect(busiest(seen, windowMs * 2)).toBe(100);
    // 100 requests at 60 per window cannot all go in the first window.
    expect(elapsed).toBeGreaterThanOrEqual(windowMs - 50);
    const waits = events.filter((e) => e.type === "rate_limit_wait");
    expect(waits.length).toBeGreaterThan(0);
    expect(waits[0]).toMatchObject({ key: "openai:shared-test", limit: "rpm", model: "openai:gpt-4o-mini" });
  });

  it("models of one provider resolved from strings share the limit set with setRateLimits", async () => {
    // A call that first waited for an answer in flight waits the window after it too: with the
    // default maxWaitMs (one window) a loaded machine could push that a millisecond over.
    setRateLimits("openai", { rpm: 2, windowMs: 300, maxWaitMs: 2_000 });
    try {
      const env = { OPENAI_API_KEY: "sk-x", OPENAI_BASE_URL: `${server.url}/v1` };
      const { resolveModel } = await import("glassloop");
      const first = resolveModel("openai:gpt-4o-mini", env);
      const second = resolveModel("openai:gpt-4.1", env);
      expect(first.id).toBe("openai:gpt-4o-mini");
      const started = performance.now();
      const events: AgentEvent[] = [];
      await Promise.all([
        new Agent({ model: first, tools: [noop] }).run("go", { onEvent: (e) => events.push(e) }),
        new Agent({ model: second, tools: [noop] }).run("go", { onEvent: (e) => events.push(e) }),
      ]);
      // Four requests, two per window: the second pair waits one window.
      expect(performance.now() - started).toBeGreaterThanOrEqual(280);
      expect(events.some((e) => e.type === "rate_limit_wait")).toBe(true);
    } finally {
      setRateLimits("openai", undefined);
    }
  });
});

describe("the limiter", () => {
  const never = new AbortController().signal;

  it("holds tokens per window by the tokens really used, once the answer says them", async () => {
    let now = 0;
    const limiter = new RateLimiter("t", { tpm: 100, windowMs: 1_000 }, () => now);
    const waits: { limit: string; waitMs: number }[] = [];
    (await limiter.acquire(30, never)).release(60);
    (await limiter.acquire(30, never)).release(30);
    // 90 used: a request of 20 must wait until the first (60 tokens at t=0) leaves the window.
    const pending = limiter.acquire(20, never, (w) => waits.push(w));
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 5));
    expect(waits).toEqual([{ limit: "tpm", waitMs: 1_000 }]);
    now = 1_000;
    await new Promise((r) => setTimeout(r, 1_010));
    (await pending).release(20);
  });

  it("allows `concurrency` calls in flight, and the next goes when one ends", async () => {
    const limiter = new RateLimiter("c", { concurrency: 2 });
    const a = await limiter.acquire(1, never);
    await limiter.acquire(1, never);
    let third = false;
    const waiting = limiter.acquire(1, never).then((p) => {
      third = true;
      return p;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(third).toBe(false);
    a.release();
    (await waiting).release();
    expect(third).toBe(true);
  });

  it("fails at once with a RateLimitError when the wait would pass maxWaitMs, and a signal ends a wait", async () => {
    let now = 0;
    const limiter = new RateLimiter("w", { rpm: 1, windowMs: 60_000, maxWaitMs: 1_000 }, () => now);
    (await limiter.acquire(1, never)).release();
    const error = await limiter.acquire(1, never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ provider: "client", retryAfterMs: 60_000 });
    now = 60_000;
    const abort = new AbortController();
    await limiter.acquire(1, never);
    const waiting = new RateLimiter("s", { rpm: 1, windowMs: 500 });
    await waiting.acquire(1, never);
    const stopped = waiting.acquire(1, abort.signal).catch((e: unknown) => e);
    abort.abort(new Error("stop"));
    expect(await stopped).toMatchObject({ message: "stop" });
  });

  it("tightens from a provider's 429: Retry-After pauses the key, rate headers lower the ceilings", () => {
    const now = 10_000;
    const limiter = new RateLimiter("h", { rpm: 500, tpm: 1_000_000, windowMs: 60_000 }, () => now);
    limiter.learn({
      headers: {
        "x-ratelimit-limit-requests": "60",
        "x-ratelimit-limit-tokens": "150000",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "1s",
      },
    });
    expect(limiter.limits).toMatchObject({ rpm: 60, tpm: 150_000 });
    const anthropic = new RateLimiter("a", { windowMs: 60_000 }, () => now);
    anthropic.learn({
      retryAfterMs: 2_000,
      headers: {
        "anthropic-ratelimit-requests-limit": "50",
        "anthropic-ratelimit-tokens-remaining": "0",
        "anthropic-ratelimit-tokens-reset": new Date(now + 5_000).toISOString(),
      },
    });
    expect(anthropic.limits).toMatchObject({ rpm: 50 });
  });

  it("learns from a real 429 of the server: the next call waits out its Retry-After", async () => {
    const model = rateLimited(openai(), { key: "openai:learn-test", rpm: 1_000, windowMs: 60_000 });
    server.handler = undefined;
    server.enqueue(
      {
        status: 429,
        headers: { "retry-after-ms": "250", "x-ratelimit-limit-requests": "120" },
        json: { error: { message: "Rate limit reached" } },
      },
      chatJson({ text: "ok" }),
    );
    const events: AgentEvent[] = [];
    const agent = new Agent({ model, modelSettings: {} });
    // The model's own retry waits the 250 ms; the limiter learned the ceiling from the headers.
    await agent.run("x", { onEvent: (e) => events.push(e) });
    expect(model.limiter.limits.rpm).toBe(120);
    expect(events.filter((e) => e.type === "model_retry")).toMatchObject([{ delayMs: 250 }]);
  });
});
