/**
 * Attack: a server reports usage numbers that would shrink the run's budget: `prompt_tokens:
 * -1e8`, `{}`, Infinity, a fraction, more cached than input tokens. Each wire protocol's usage goes
 * through one rule (src/models/usage-check.ts) and such a server gets a typed `provider_protocol`
 * error; an honest parent whose sub-agent talks to a lying server still stops at its limits.
 */
import { Agent, BudgetExceededError, type Model, ModelCallError } from "glassloop";
import {
  AnthropicModel,
  GeminiModel,
  OpenAIChatModel,
  OpenAIResponsesModel,
  ProviderProtocolError,
} from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sseData, sseEvents, startWireServer, type WireServer } from "../helpers/wire-server.js";

const KEY = "sk-usage-attack-key-0123456789";
const NO_RETRY = { retry: { maxRetries: 0 } };

let server: WireServer;
let child: WireServer;
beforeAll(async () => {
  [server, child] = await Promise.all([startWireServer(), startWireServer()]);
});
afterAll(() => Promise.all([server.close(), child.close()]));
beforeEach(() => {
  server.reset();
  child.reset();
});

/** One wire protocol: a model on the server, and an answer whose usage is `usage` (raw JSON text). */
interface Protocol {
  name: string;
  model(url: string): Model;
  /** A complete non-streamed answer "ok" with the usage object's JSON text spliced in. */
  answer(usage: string): string;
  /** The protocol's usage object with input `input`, output `output` and the lie in `field`. */
  usage(field: "input" | "output" | "cached", value: string): string;
}

const openaiChat: Protocol = {
  name: "OpenAI chat",
  model: (url) =>
    new OpenAIChatModel({ model: "gpt-4o-mini", baseURL: `${url}/v1`, apiKey: KEY, http: NO_RETRY }),
  answer: (usage) =>
    `{"id":"c1","model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":${usage}}`,
  usage: (field, value) =>
    field === "cached"
      ? `{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":${value}}}`
      : field === "input"
        ? `{"prompt_tokens":${value},"completion_tokens":2}`
        : `{"prompt_tokens":10,"completion_tokens":${value}}`,
};

const responses: Protocol = {
  name: "OpenAI Responses",
  model: (url) =>
    new OpenAIResponsesModel("gpt-5", { baseURL: `${url}/v1`, apiKey: KEY, http: NO_RETRY, env: {} }),
  answer: (usage) =>
    `{"id":"resp_1","status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}],"usage":${usage}}`,
  usage: (field, value) =>
    field === "cached"
      ? `{"input_tokens":10,"output_tokens":2,"input_tokens_details":{"cached_tokens":${value}}}`
      : field === "input"
        ? `{"input_tokens":${value},"output_tokens":2}`
        : `{"input_tokens":10,"output_tokens":${value}}`,
};

const anthropic: Protocol = {
  name: "Anthropic",
  model: (url) =>
    new AnthropicModel("claude-sonnet-4-0", { apiKey: KEY, baseURL: url, http: NO_RETRY, env: {} }),
  answer: (usage) =>
    `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-0","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":${usage}}`,
  // Anthropic reports cache reads apart from input, so "more cached than input" cannot be said;
  // the lie there is a negative cache read, which would make the fresh input negative.
  usage: (field, value) =>
    field === "cached"
      ? `{"input_tokens":10,"output_tokens":2,"cache_read_input_tokens":-${value}}`
      : field === "input"
        ? `{"input_tokens":${value},"output_tokens":2}`
        : `{"input_tokens":10,"output_tokens":${value}}`,
};

const gemini: Protocol = {
  name: "Gemini",
  model: (url) =>
    new GeminiModel("gemini-2.5-flash", { baseURL: `${url}/v1beta`, apiKey: KEY, http: NO_RETRY, env: {} }),
  answer: (usage) =>
    `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}],"usageMetadata":${usage}}`,
  usage: (field, value) =>
    field === "cached"
      ? `{"promptTokenCount":10,"candidatesTokenCount":2,"cachedContentTokenCount":${value}}`
      : field === "input"
        ? `{"promptTokenCount":${value},"candidatesTokenCount":2}`
        : `{"promptTokenCount":10,"candidatesTokenCount":${value}}`,
};

const LIES: { field: "input" | "output" | "cached"; value: string; what: string }[] = [
  { field: "input", value: "-1e8", what: "a negative input count" },
  { field: "input", value: "{}", what: "an object for a count" },
  { field: "input", value: "1e999", what: "Infinity (JSON.parse reads 1e999 as Infinity)" },
  { field: "input", value: '"NaN"', what: "a string for a count" },
  { field: "output", value: "2.5", what: "a fractional output count" },
  { field: "output", value: "-2", what: "a negative output count" },
  { field: "cached", value: "11", what: "more cached tokens than input tokens" },
];

describe.each([openaiChat, responses, anthropic, gemini])(
  "a $name server that lies about usage",
  (protocol) => {
    it.each(LIES)("$what is a typed protocol error, not a smaller budget", async ({ field, value }) => {
      server.enqueue({ json: protocol.answer(protocol.usage(field, value)) });
      const agent = new Agent({ model: protocol.model(server.url) });
      const error = await agent.run("hi").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ModelCallError);
      const cause = (error as ModelCallError).cause;
      expect(cause).toBeInstanceOf(ProviderProtocolError);
      expect((cause as ProviderProtocolError).code).toBe("provider_protocol");
      expect((cause as Error).message).toMatch(/reported impossible usage/);
      // The run's totals never went below zero.
      const usage = (error as ModelCallError).usage;
      expect(usage.inputTokens).toBe(0);
      expect(usage.costUsd ?? 0).toBe(0);
    });

    it("a server that omits usage altogether counts as 0 tokens and $0 (not guessed): maxTokens cannot see it", async () => {
      server.enqueue({ json: protocol.answer("null") });
      const result = await new Agent({ model: protocol.model(server.url), limits: { maxTokens: 1 } }).run(
        "hi",
      );
      expect(result.output).toBe("ok");
      expect(result.usage).toMatchObject({ requests: 1, inputTokens: 0, outputTokens: 0 });
      expect(result.usage.costUsd ?? 0).toBe(0);
    });

    it("honest usage passes unchanged", async () => {
      server.enqueue({ json: protocol.answer(protocol.usage("input", "10")) });
      const result = await new Agent({ model: protocol.model(server.url) }).run("hi");
      expect(result.usage.inputTokens).toBe(10);
      expect(result.usage.outputTokens).toBe(2);
    });
  },
);

/** Streams a run to its end; the error that ended it, if any. */
async function drain(agent: Agent): Promise<unknown> {
  const stream = agent.stream("hi");
  for await (const _event of stream);
  return stream.result.catch((error: unknown) => error);
}

describe("streamed usage goes through the same rule", () => {
  it("an OpenAI chat stream whose usage chunk says prompt_tokens: -1e8", async () => {
    server.enqueue({
      sse: sseData([
        { id: "c1", choices: [{ index: 0, delta: { role: "assistant", content: "ok" } }] },
        { id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        { id: "c1", choices: [], usage: { prompt_tokens: -1e8, completion_tokens: 2 } },
      ]),
    });
    const agent = new Agent({ model: openaiChat.model(server.url) });
    const error = await drain(agent);
    expect((error as ModelCallError).cause).toBeInstanceOf(ProviderProtocolError);
  });

  it("an Anthropic stream whose message_delta says output_tokens: {}", async () => {
    server.enqueue({
      sse: sseEvents([
        {
          event: "message_start",
          data: {
            type: "message_start",
            message: { id: "m", type: "message", role: "assistant", content: [], usage: { input_tokens: 5 } },
          },
        },
        {
          event: "content_block_start",
          data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
        },
        {
          event: "content_block_delta",
          data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
        },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        {
          event: "message_delta",
          data: { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: {} } },
        },
        { event: "message_stop", data: { type: "message_stop" } },
      ]),
    });
    const agent = new Agent({ model: anthropic.model(server.url) });
    const error = await drain(agent);
    expect((error as ModelCallError).cause).toBeInstanceOf(ProviderProtocolError);
  });
});

describe("an honest parent whose sub-agent's server lies stops at its own limits", () => {
  /** The parent's server: every answer is a call to `ask` (new input each time) costing 1,010 tokens. */
  function askForever(): void {
    server.handler = (_request, index) => ({
      json: {
        id: `p${index}`,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: `call_${index}`,
                  type: "function",
                  function: { name: "ask", arguments: `{"input":"q${index}"}` },
                },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 1_000, completion_tokens: 10 },
      },
    });
  }
  const parentModel = () =>
    new OpenAIChatModel({
      model: "gpt-4o-mini",
      baseURL: `${server.url}/v1`,
      apiKey: KEY,
      http: NO_RETRY,
      price: { inputPerMTok: 1_000, outputPerMTok: 1_000 },
    });
  const childModel = () =>
    new OpenAIChatModel({
      model: "gpt-4o-mini",
      baseURL: `${child.url}/v1`,
      apiKey: KEY,
      http: NO_RETRY,
      price: { inputPerMTok: 1_000, outputPerMTok: 1_000 },
    });

  it.each([
    ["prompt_tokens: -1e8", '{"prompt_tokens":-1e8,"completion_tokens":1}'],
    ["prompt_tokens: {}", '{"prompt_tokens":{},"completion_tokens":1}'],
    [
      "cached > input",
      '{"prompt_tokens":1,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1000000000}}',
    ],
  ])("maxTokens holds when the sub-agent's server says %s", async (_name, usage) => {
    askForever();
    child.handler = () => ({ json: openaiChat.answer(usage) });
    const helper = new Agent({ model: childModel() });
    const parent = new Agent({
      model: parentModel(),
      tools: [helper.asTool({ name: "ask", description: "Asks the helper." })],
      limits: { maxTokens: 10_000, maxSteps: 40 },
    });
    const error = await parent.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect((error as BudgetExceededError).limit).toBe("maxTokens");
    // 10 honest calls of 1,010 tokens reach 10,100; before the fix the parent ran to maxSteps.
    expect(server.requests.length).toBeLessThanOrEqual(10);
    expect((error as BudgetExceededError).usage.inputTokens).toBeGreaterThan(0);
  });

  it("maxCostUsd holds when the sub-agent's server reports more cached than input tokens", async () => {
    askForever();
    child.handler = () => ({
      json: openaiChat.answer(
        '{"prompt_tokens":1,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1000000000}}',
      ),
    });
    const helper = new Agent({ model: childModel() });
    const parent = new Agent({
      model: parentModel(),
      tools: [helper.asTool({ name: "ask", description: "Asks the helper." })],
      limits: { maxCostUsd: 5, maxSteps: 40 },
    });
    const error = await parent.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect((error as BudgetExceededError).limit).toBe("maxCostUsd");
    // Each parent call costs $1.01: the sixth would pass $5.
    expect(server.requests.length).toBeLessThanOrEqual(5);
    expect((error as BudgetExceededError).usage.costUsd).toBeGreaterThan(0);
  });
});
