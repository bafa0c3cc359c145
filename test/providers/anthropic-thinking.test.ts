/**
 * Anthropic extended thinking and prompt caching, replayed from pydantic-ai's recordings: a
 * streamed thinking answer (re-chunked at random byte boundaries) whose signed block goes back
 * byte for byte on the next turn, and a two-run conversation whose cache reads and writes are
 * counted and priced at their own rates. (The multi-turn thinking-with-tools run is replayed in
 * anthropic-cassettes.test.ts, request by request.)
 */
import { Agent, type AgentEvent, type Message } from "glassloop";
import { AnthropicModel, OpenAIChatModel } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadCassette, replyOf } from "../helpers/cassettes.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

type Block = Record<string, unknown>;
interface Body {
  messages: { role: string; content: string | Block[] }[];
  system?: string | Block[];
  thinking?: { budget_tokens: number };
  tools?: Block[];
}

const STREAM = "test_anthropic-test_anthropic_model_thinking_part_stream";
const CACHE = "test_anthropic-test_anthropic_cache_real_api";

/** A streamed run's result. */
async function streamed(agent: Agent, input: string) {
  const stream = agent.stream(input);
  for await (const _ of stream);
  return stream.result;
}

const claude = (options: ConstructorParameters<typeof AnthropicModel>[1] = {}) =>
  new AnthropicModel("claude-sonnet-4-0", {
    apiKey: "sk-ant-test-key-000",
    baseURL: server.url,
    thinking: { budgetTokens: 1024 },
    cache: false,
    ...options,
  });

describe("Anthropic extended thinking", () => {
  it("a streamed thinking block, cut at random byte boundaries, becomes one signed reasoning part", async () => {
    const [exchange] = loadCassette<Body>(STREAM);
    const texts = new Set<string>();
    for (let seed = 1; seed <= 6; seed++) {
      server.reset();
      server.enqueue(replyOf(exchange, seed, 40));
      const events: AgentEvent[] = [];
      const stream = new Agent({ model: claude() }).stream("How do I cross the street?", {
        onEvent: (e) => events.push(e),
      });
      for await (const _ of stream);
      const result = await stream.result;
      const sent = server.requests[0]?.body as Body;
      expect(sent.thinking).toEqual(exchange?.request.parsed_body.thinking);
      const assistant = result.messages.at(-1) as Extract<Message, { role: "assistant" }>;
      expect(assistant.reasoning).toHaveLength(1);
      const part = assistant.reasoning?.[0];
      expect(part?.provider).toBe("anthropic");
      expect(part?.text).toMatch(/^This is a straightforward question about pedestrian safety/);
      expect(part?.signature).toMatch(/^EvMCCkYICxgCKkCHP2cSuEdc/);
      // The reasoning deltas add up to the part's text, and the answer's deltas to the answer.
      const thinking = events.flatMap((e) => (e.type === "reasoning_delta" ? [e.text] : [])).join("");
      expect(thinking).toBe(part?.text);
      const response = events.find((e) => e.type === "model_response");
      expect(response?.type === "model_response" && response.reasoning).toEqual(assistant.reasoning);
      texts.add(JSON.stringify(assistant));
    }
    // Every chunking gave the same transcript.
    expect(texts.size).toBe(1);
  });

  it("the next turn sends the thinking block back unchanged, before the answer text", async () => {
    const [exchange] = loadCassette<Body>(STREAM);
    server.enqueue(replyOf(exchange));
    const first = await streamed(new Agent({ model: claude() }), "How do I cross the street?");
    server.enqueue({ json: { content: [{ type: "text", text: "Ok." }], stop_reason: "end_turn" } });
    await new Agent({ model: claude() }).run("And a river?", { history: first.messages });
    const sent = server.requests[1]?.body as Body;
    const part = (first.messages.at(-1) as Extract<Message, { role: "assistant" }>).reasoning?.[0];
    expect(sent.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: part?.text, signature: part?.signature },
        { type: "text", text: first.output },
      ],
    });
  });

  it("a redacted_thinking block is kept as an opaque part and sent back as it came", async () => {
    server.enqueue({
      json: {
        content: [
          { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
          { type: "tool_use", id: "toolu_1", name: "noop", input: {} },
        ],
        stop_reason: "tool_use",
      },
    });
    server.enqueue({ json: { content: [{ type: "text", text: "done" }], stop_reason: "end_turn" } });
    const { tool } = await import("glassloop");
    const { z } = await import("zod");
    const noop = tool({ name: "noop", description: "", input: z.object({}), run: () => "ok" });
    const result = await new Agent({ model: claude(), tools: [noop] }).run("go");
    const assistant = result.messages[1] as Extract<Message, { role: "assistant" }>;
    expect(assistant.reasoning).toEqual([
      {
        type: "reasoning",
        provider: "anthropic",
        text: "",
        signature: "EmwKAhgBEgy3va3pzix/LafPsn4a",
        redacted: true,
      },
    ]);
    const second = server.requests[1]?.body as Body;
    expect(second.messages[1]?.content).toEqual([
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
      { type: "tool_use", id: "toolu_1", name: "noop", input: {} },
    ]);
  });

  it("a thinking budget that Anthropic would refuse is a ConfigError up front", () => {
    for (const budgetTokens of [100, 5000, 1.5])
      expect(() => claude({ thinking: { budgetTokens }, maxTokens: 4096 })).toThrow(/budgetTokens/);
  });

  it("moving the transcript to another provider drops the thinking with a reasoning_dropped event", async () => {
    const [exchange] = loadCassette<Body>(STREAM);
    server.enqueue(replyOf(exchange));
    const first = await streamed(new Agent({ model: claude() }), "How do I cross the street?");
    server.enqueue({
      json: {
        choices: [{ index: 0, message: { role: "assistant", content: "Ok." }, finish_reason: "stop" }],
      },
    });
    const events: AgentEvent[] = [];
    const gpt = new OpenAIChatModel({
      model: "gpt-4o-mini",
      baseURL: `${server.url}/v1`,
      apiKey: "sk-test-0000",
    });
    await new Agent({ model: gpt }).run("And a river?", {
      history: first.messages,
      onEvent: (e) => events.push(e),
    });
    expect(server.requests[1]?.raw).not.toContain("signature");
    expect(server.requests[1]?.raw).not.toContain("straightforward question");
    const dropped = events.filter((e) => e.type === "reasoning_dropped");
    expect(dropped).toMatchObject([{ type: "reasoning_dropped", step: 1, count: 1, from: ["anthropic"] }]);
  });
});

describe("Anthropic prompt caching", () => {
  it("by default marks the last tool, the system prompt and the last message; `cache: false` marks nothing", async () => {
    const { tool } = await import("glassloop");
    const { z } = await import("zod");
    const noop = tool({ name: "noop", description: "", input: z.object({}), run: () => "ok" });
    const reply = { json: { content: [{ type: "text", text: "hi" }], stop_reason: "end_turn" } };
    server.enqueue(reply, reply);
    const opts = { thinking: undefined } as const;
    await new Agent({
      model: claude({ ...opts, cache: true }),
      tools: [noop],
      instructions: "Be brief.",
    }).run("hello");
    await new Agent({ model: claude(opts), tools: [noop], instructions: "Be brief." }).run("hello");
    const [marked, plain] = server.requests.map((r) => r.body as Body);
    const ephemeral = { type: "ephemeral" };
    expect(marked?.tools?.at(-1)?.cache_control).toEqual(ephemeral);
    expect(marked?.system).toEqual([{ type: "text", text: "Be brief.", cache_control: ephemeral }]);
    expect(marked?.messages.at(-1)?.content).toEqual([
      { type: "text", text: "hello", cache_control: ephemeral },
    ]);
    expect(plain?.system).toBe("Be brief.");
    expect(server.requests[1]?.raw).not.toContain("cache_control");
  });

  it("replays the cached conversation: reads and writes counted apart and priced at their own rates", async () => {
    const exchanges = loadCassette<Body>(CACHE);
    server.handler = (_r, i) => replyOf(exchanges[i]);
    const model = claude({ thinking: undefined, cache: true });
    const first = await new Agent({ model, instructions: "You are a helpful assistant." }).run(
      String((exchanges[0]?.request.parsed_body.messages[0]?.content as Block[] | undefined)?.[0]?.text),
    );
    const second = await new Agent({ model, instructions: "You are a helpful assistant." }).run(
      "Can you summarize that in one sentence?",
      { history: first.messages },
    );
    expect(first.usage).toMatchObject({ inputTokens: 1114, cachedInputTokens: 1111 });
    expect(first.usage.cacheWriteInputTokens).toBeUndefined();
    expect(second.usage).toMatchObject({
      inputTokens: 1532,
      cachedInputTokens: 1111,
      cacheWriteInputTokens: 418,
    });
    // claude-sonnet-4 (the 4.0 alias): $3 fresh, $0.30 cache read, $3.75 cache write, $15 out.
    const expected = (3 * 3 + 1111 * 0.3 + 418 * 3.75 + 33 * 15) / 1e6;
    expect(second.usage.costUsd).toBeCloseTo(expected, 10);
    // The second request carries the first answer and marks its own last message.
    const sent = server.requests[1]?.body as Body;
    expect(sent.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(sent.messages.at(-1)?.content).toEqual([
      { type: "text", text: "Can you summarize that in one sentence?", cache_control: { type: "ephemeral" } },
    ]);
  });
});
