/**
 * Fallback chains against scripted servers on 127.0.0.1 speaking Chat Completions: which model
 * answers, how long the switch takes, and what the events say, for each fault a provider can show
 * (429 with a short and a long Retry-After, 503, a hang, a reset before and after the first byte,
 * a 400), plus the circuit breaker, the user's rule, pricing and budgets across the chain.
 */

import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { Agent, type AgentEvent, ModelCallError, RateLimitError, tool } from "glassloop";
import {
  CircuitBreakers,
  FallbackExhaustedError,
  FallbackModel,
  type FallbackOptions,
  fallback,
  type HttpOptions,
  OpenAIChatModel,
} from "glassloop/models";
import { otelListener } from "glassloop/otel";
import { buildRunView } from "glassloop/trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { chatJson } from "../helpers/openai-replies.js";
import { sseData, startWireServer, type WireServer } from "../helpers/wire-server.js";

let primary: WireServer;
let backup: WireServer;
beforeAll(async () => {
  [primary, backup] = await Promise.all([startWireServer(), startWireServer()]);
});
afterAll(async () => {
  await Promise.all([primary.close(), backup.close()]);
});
beforeEach(() => {
  primary.reset();
  backup.reset();
});

const usage = { prompt_tokens: 1_000, completion_tokens: 100 };
const model = (server: WireServer, name: string, http: HttpOptions = {}, price = 1) =>
  new OpenAIChatModel({
    model: name,
    baseURL: `${server.url}/v1`,
    apiKey: `sk-${name}-key-0123456789`,
    price: { inputPerMTok: price, outputPerMTok: price * 4 },
    http,
  });
const chain = (options: FallbackOptions = {}, http: HttpOptions = {}) =>
  new FallbackModel([model(primary, "primary", http, 1), model(backup, "backup", {}, 10)], {
    breaker: { registry: new CircuitBreakers() },
    ...options,
  });

async function run(agentModel: FallbackModel, stream = false) {
  const events: AgentEvent[] = [];
  const agent = new Agent({ model: agentModel, instructions: "Answer." });
  const started = performance.now();
  try {
    const options = { onEvent: (e: AgentEvent) => events.push(e) };
    const result = stream ? await agent.stream("hi", options).result : await agent.run("hi", options);
    return { result, events, error: undefined, ms: performance.now() - started };
  } catch (error) {
    return { result: undefined, events, error, ms: performance.now() - started };
  }
}
const of = <T extends AgentEvent["type"]>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
const rateLimited = (headers: Record<string, string>) => ({
  status: 429,
  headers,
  json: { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } },
});

describe("a fallback chain", () => {
  it("waits out a short Retry-After on the same model and never asks the next", async () => {
    primary.enqueue(rateLimited({ "retry-after-ms": "150" }), chatJson({ text: "from primary", usage }));
    const { result, events, ms } = await run(chain());
    expect(result?.output).toBe("from primary");
    expect(backup.requests).toHaveLength(0);
    expect(of(events, "model_retry")).toMatchObject([{ delayMs: 150, attempt: 2 }]);
    expect(of(events, "model_fallback")).toEqual([]);
    expect(ms).toBeGreaterThanOrEqual(140);
    expect(of(events, "model_response")[0]?.model).toBe("openai:primary");
  });

  it("moves on at once from a long Retry-After, and the answer is priced at the model that gave it", async () => {
    primary.enqueue(rateLimited({ "retry-after": "30" }));
    backup.enqueue(chatJson({ text: "from backup", usage }));
    const { result, events, ms } = await run(chain());
    expect(result?.output).toBe("from backup");
    expect(primary.requests).toHaveLength(1);
    // 30 s asked for; the switch takes one round trip, not the wait.
    expect(ms).toBeLessThan(2_000);
    expect(of(events, "model_fallback")).toMatchObject([
      { from: "openai:primary", to: "openai:backup", reason: "rate_limited", status: 429 },
    ]);
    expect(of(events, "model_request").map((e) => e.model)).toEqual(["openai:primary", "openai:backup"]);
    expect(of(events, "model_response")[0]?.model).toBe("openai:backup");
    // 1,000 in at $10/M + 100 out at $40/M: the backup's price, not the primary's.
    expect(result?.usage.costUsd).toBeCloseTo(0.014, 10);
    expect(result?.usage.requests).toBe(2);
  });

  it("moves on from a 503 without the model's own backoff retries", async () => {
    primary.enqueue({ status: 503, json: { error: { message: "Service Unavailable" } } });
    backup.enqueue(chatJson({ text: "from backup", usage }));
    // The primary's policy would retry twice with 400 ms, then 800 ms of backoff.
    const { result, events, ms } = await run(chain({}, { retry: { initialDelayMs: 400, jitter: 0 } }));
    expect(result?.output).toBe("from backup");
    expect(primary.requests).toHaveLength(1);
    expect(ms).toBeLessThan(400);
    expect(of(events, "model_retry")).toEqual([]);
    expect(of(events, "model_fallback")).toMatchObject([{ reason: "overloaded", status: 503 }]);
  });

  it("moves on from a model that hangs until its deadline", async () => {
    primary.enqueue({ ...chatJson({ text: "too late" }), delayMs: 5_000 });
    backup.enqueue(chatJson({ text: "from backup", usage }));
    const { result, events, ms } = await run(chain({}, { deadlineMs: 250 }));
    expect(result?.output).toBe("from backup");
    expect(ms).toBeGreaterThanOrEqual(240);
    expect(ms).toBeLessThan(2_000);
    expect(of(events, "model_fallback")).toMatchObject([{ reason: "timeout", from: "openai:primary" }]);
  });

  it("moves on when the chain's own timeout passes before the first byte", async () => {
    primary.enqueue({ ...chatJson({ text: "too late" }), delayMs: 5_000 });
    backup.enqueue(chatJson({ text: "from backup", usage }));
    const { result, events, ms } = await run(chain({ timeoutMs: 200 }));
    expect(result?.output).toBe("from backup");
    expect(ms).toBeLessThan(2_000);
    expect(of(events, "model_fallback")).toMatchObject([
      { reason: "timeout", elapsedMs: expect.any(Number) },
    ]);
  });

  it("moves on silently from a connection reset before the first byte of a stream", async () => {
    primary.enqueue({ reset: true });
    backup.enqueue({
      sse: sseData([{ choices: [{ index: 0, delta: { content: "hello" }, finish_reason: "stop" }] }]),
    });
    const { result, events } = await run(chain(), true);
    expect(result?.output).toBe("hello");
    expect(of(events, "text_delta").map((e) => e.text)).toEqual(["hello"]);
    expect(of(events, "model_fallback")).toMatchObject([{ reason: "network" }]);
  });

  it("fails as any model call does when the stream breaks after its first byte: no other model answers", async () => {
    const stream = sseData([
      { choices: [{ index: 0, delta: { content: "Hel" } }] },
      { choices: [{ index: 0, delta: { content: "lo" }, finish_reason: "stop" }] },
    ]);
    primary.enqueue({ sse: stream, split: [40], resetAt: 60, chunkDelayMs: 20 });
    const { error, events } = await run(chain(), true);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).cause).toMatchObject({ code: "network" });
    expect(of(events, "text_delta").map((e) => e.text)).toEqual(["Hel"]);
    expect(backup.requests).toHaveLength(0);
  });

  it("never falls over on a 400: the request is the caller's fault, and the next model would get it too", async () => {
    primary.enqueue({
      status: 400,
      json: { error: { message: "Invalid 'messages[0].role'", type: "invalid_request_error" } },
    });
    const { error, events } = await run(chain());
    expect((error as ModelCallError).cause).toMatchObject({ code: "provider_error", status: 400 });
    expect(backup.requests).toHaveLength(0);
    expect(of(events, "model_fallback")).toEqual([]);
  });

  it("follows the user's rule first: a 400 it names falls over, a 429 it refuses does not", async () => {
    const on = (error: unknown) =>
      error instanceof RateLimitError
        ? false
        : String((error as Error).message).includes("model_not_found") || undefined;
    primary.enqueue({ status: 400, json: { error: { message: "model_not_found: primary" } } });
    backup.enqueue(chatJson({ text: "from backup", usage }));
    const first = await run(chain({ on }));
    expect(first.result?.output).toBe("from backup");
    expect(of(first.events, "model_fallback")).toMatchObject([{ reason: "user_rule", status: 400 }]);
    // More than the model's own policy waits for (60 s): the 429 ends the call at once.
    primary.enqueue(rateLimited({ "retry-after": "90" }));
    const second = await run(chain({ on }));
    expect((second.error as ModelCallError).cause).toBeInstanceOf(RateLimitError);
    expect(backup.requests).toHaveLength(1);
  });

  it("reports every model's failure when none answers", async () => {
    primary.enqueue({ status: 500, json: { error: { message: "boom" } } });
    backup.enqueue(rateLimited({ "retry-after": "120" }));
    const { error, events } = await run(chain());
    const cause = (error as ModelCallError).cause as FallbackExhaustedError;
    expect(cause).toBeInstanceOf(FallbackExhaustedError);
    expect(cause.attempts).toMatchObject([
      { model: "openai:primary", reason: "server_error", status: 500 },
      { model: "openai:backup", reason: "rate_limited", status: 429 },
    ]);
    expect(of(events, "model_fallback").map((e) => [e.from, e.to])).toEqual([
      ["openai:primary", "openai:backup"],
      ["openai:backup", undefined],
    ]);
  });

  it("keeps a cost limit across the chain, counted at the answering model's price", async () => {
    primary.enqueue(rateLimited({ "retry-after": "30" }));
    backup.enqueue(
      chatJson({ toolCalls: [{ id: "c1", name: "nothing", arguments: "{}" }], usage }),
      chatJson({ text: "never", usage }),
    );
    const agent = new Agent({
      model: chain(),
      tools: [tool({ name: "nothing", description: "Does nothing.", input: z.object({}), run: () => "ok" })],
      // One backup answer costs $0.014: the second model call must not happen.
      limits: { maxCostUsd: 0.01 },
    });
    const error = await agent.run("go").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "budget_exceeded", limit: "maxCostUsd" });
    expect(backup.requests).toHaveLength(1);
  });
});

describe("what the trace, the viewer's run view and OpenTelemetry say of a switch", () => {
  it("the step names the model that answered and why the one before it did not", async () => {
    primary.enqueue({
      status: 529,
      json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
    backup.enqueue(chatJson({ text: "from backup", usage }));
    const exporter = new InMemorySpanExporter();
    const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer(
      "t",
    );
    const listener = otelListener({ tracer });
    const events: AgentEvent[] = [];
    await new Agent({ model: chain() }).run("hi", {
      onEvent: (e) => {
        events.push(e);
        listener(e);
      },
    });
    const step = buildRunView(events).steps[0];
    expect(step?.fallbacks).toMatchObject([
      { from: "openai:primary", to: "openai:backup", reason: "overloaded", status: 529 },
    ]);
    expect(step?.response?.model).toBe("openai:backup");
    const [chat] = exporter.getFinishedSpans().filter((s) => s.name.startsWith("chat "));
    expect(chat?.attributes).toMatchObject({ "gen_ai.response.model": "backup" });
    expect(chat?.events.map((e) => [e.name, e.attributes?.["glassloop.fallback.reason"]])).toEqual([
      ["fallback", "overloaded"],
    ]);
  });
});

describe("the circuit breaker", () => {
  it("opens after N failures and skips the dead model, then lets one probe through after the cooldown and closes", async () => {
    let now = 1_000_000;
    const registry = new CircuitBreakers(() => now);
    const breaking = () => chain({ breaker: { failures: 2, cooldownMs: 10_000, registry } });
    const down = { status: 502, json: { error: { message: "Bad Gateway" } } };
    for (let i = 0; i < 2; i++) {
      primary.enqueue(down);
      backup.enqueue(chatJson({ text: `backup ${i}`, usage }));
      expect((await run(breaking())).result?.output).toBe(`backup ${i}`);
    }
    expect(registry.state("openai:primary", 10_000)).toBe("open");
    backup.enqueue(chatJson({ text: "backup while open", usage }));
    const skipped = await run(breaking());
    expect(skipped.result?.output).toBe("backup while open");
    expect(primary.requests).toHaveLength(2);
    expect(of(skipped.events, "model_fallback")).toMatchObject([
      { from: "openai:primary", reason: "circuit_open", elapsedMs: 0 },
    ]);
    now += 10_000;
    expect(registry.state("openai:primary", 10_000)).toBe("half_open");
    primary.enqueue(chatJson({ text: "primary is back", usage }));
    expect((await run(breaking())).result?.output).toBe("primary is back");
    expect(registry.state("openai:primary", 10_000)).toBe("closed");
  });

  it("lets exactly one probe through while half-open, and a failed probe opens it again", () => {
    let now = 0;
    const registry = new CircuitBreakers(() => now);
    registry.failure("m", 1);
    expect(registry.admit("m", 100)).toMatchObject({ allowed: false });
    now = 100;
    expect(registry.admit("m", 100)).toMatchObject({ allowed: true, probe: true });
    expect(registry.admit("m", 100)).toMatchObject({ allowed: false });
    registry.failure("m", 5);
    expect(registry.state("m", 100)).toBe("open");
    now = 200;
    expect(registry.admit("m", 100)).toMatchObject({ allowed: true, probe: true });
    registry.success("m");
    expect(registry.admit("m", 100)).toEqual({ allowed: true, probe: false });
  });
});

describe("chains from strings and arrays", () => {
  it("an array as the agent's model is a chain of the resolved models", () => {
    const env = { OPENAI_API_KEY: "sk-a", ANTHROPIC_API_KEY: "sk-b" };
    const chained = fallback(["openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5"], { env });
    expect(chained.models.map((m) => m.id)).toEqual(["openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5"]);
    expect(chained.id).toBe("fallback(openai:gpt-4o-mini, anthropic:claude-sonnet-4-5)");
    expect(() => fallback(["openai:gpt-4o-mini", "openai:gpt-4o-mini"], { env })).toThrow(/twice/);
    expect(() => new FallbackModel([])).toThrow(/at least one/);
  });
});
