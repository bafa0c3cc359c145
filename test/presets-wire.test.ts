/**
 * Every OpenAI-compatible preset against a 127.0.0.1 server speaking its wire: the model string
 * resolves through the preset's own base-URL and key variables, the request goes to
 * `<base>/chat/completions` with the key as a bearer token (none for keyless local servers) and
 * the preset's quirks in the body, and the vendor's recorded answer (where a capture of that
 * vendor exists) parses into the text, tool calls, reasoning and usage it holds.
 */
import { ConfigError, type Message, type Model, type ModelResponse, resolveModel } from "glassloop";
import {
  normalizeToolCallIds,
  OPENAI_PRESETS,
  type OpenAIChatModel,
  type OpenAIPresetName,
  priceOf,
} from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadCassette, replyOf } from "./helpers/cassettes.js";
import { openaiCaptureJson, openaiCaptureSse } from "./helpers/openai-captures.js";
import { startWireServer, type WireReply, type WireServer } from "./helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** What each vendor answered, recorded; `undefined` where no capture of that vendor exists. */
interface Recorded {
  reply: WireReply;
  /** What the parsed answer must hold. */
  expect: (response: ModelResponse) => void;
  stream?: boolean;
  /** The capture's name, for the report of which recordings were replayed. */
  source: string;
}

const firstOf = (name: string) => replyOf(loadCassette(name)[0]);

const RECORDED: Partial<Record<OpenAIPresetName, Recorded>> = {
  openai: {
    source: "vercel-ai/openai--openai-text.json",
    reply: { json: openaiCaptureJson("openai--openai-text") },
    expect: (r) => expect(r.text.length).toBeGreaterThan(0),
  },
  ollama: {
    source: "pydantic-ai/test_ollama-test_ollama_cloud_tool_output.yaml",
    reply: firstOf("test_ollama-test_ollama_cloud_tool_output"),
    expect: (r) => expect(r.text).toBe("Paris."),
  },
  mistral: {
    source: "pydantic-ai/test_mistral-test_mistral_forwards_penalties.yaml",
    reply: firstOf("test_mistral-test_mistral_forwards_penalties"),
    expect: (r) => {
      expect(r.text).toMatch(/^Hello! /);
      expect(r.usage).toMatchObject({ inputTokens: 4, outputTokens: 36 });
    },
  },
  xai: {
    source: "vercel-ai/openai-compatible--xai-tool-call.json",
    reply: { json: openaiCaptureJson("openai-compatible--xai-tool-call") },
    expect: (r) => {
      expect(r.toolCalls.map((c) => c.name)).toEqual(["weather"]);
      expect(r.reasoning?.[0]?.text).toMatch(/weather in San Francisco/);
    },
  },
  deepseek: {
    source: "pydantic-ai/test_deepseek-test_deepseek_model_thinking_stream.yaml",
    reply: firstOf("test_deepseek-test_deepseek_model_thinking_stream"),
    stream: true,
    expect: (r) => {
      expect(r.text.length).toBeGreaterThan(0);
      expect(r.reasoning?.[0]?.text.length).toBeGreaterThan(0);
    },
  },
  groq: {
    source: "vercel-ai/groq--groq-tool-call.chunks.txt",
    reply: {
      headers: { "content-type": "text/event-stream" },
      sse: openaiCaptureSse("groq--groq-tool-call"),
    },
    stream: true,
    expect: (r) => expect(r.toolCalls.map((c) => c.name)).toEqual(["weather"]),
  },
  cerebras: {
    source: "pydantic-ai/test_cerebras-test_cerebras_model_simple.yaml",
    reply: firstOf("test_cerebras-test_cerebras_model_simple"),
    expect: (r) => {
      expect(r.text).toBe("2 + 2 = 4.");
      expect(r.usage).toMatchObject({ inputTokens: 43, outputTokens: 9 });
    },
  },
};

/** The answer for vendors without a capture: the shape every compatible server shares. */
const GENERIC: Recorded = {
  source: "none (no capture of this vendor; a Chat Completions answer written here)",
  reply: {
    json: {
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    },
  },
  expect: (r) => expect(r.text).toBe("ok"),
};

function keyVariables(name: OpenAIPresetName): string[] {
  const { keyEnv } = OPENAI_PRESETS[name] as { keyEnv?: string | readonly string[] };
  return keyEnv === undefined ? [] : typeof keyEnv === "string" ? [keyEnv] : [...keyEnv];
}

const names = Object.keys(OPENAI_PRESETS) as OpenAIPresetName[];

async function call(model: Model, stream: boolean): Promise<ModelResponse> {
  return model.generate(
    {
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      stream,
      maxOutputTokens: 64,
      signal: AbortSignal.timeout(10_000),
    },
    { onRequest: () => {} },
  );
}

describe("every preset against a server speaking its wire", () => {
  it.each(names)("%s: its base-URL and key variables, its quirks, its recorded answer", async (name) => {
    const preset = OPENAI_PRESETS[name];
    const recorded = RECORDED[name] ?? GENERIC;
    const [keyVar] = keyVariables(name);
    const key = `sk-${name}-test-123456`;
    // Ollama's variable holds a bare host, as Ollama itself reads it.
    const base = name === "ollama" ? server.url.replace("http://", "") : `${server.url}/v1`;
    const env = { [preset.baseURLEnv]: base, ...(keyVar && { [keyVar]: key }) };
    const model = resolveModel(`${name}:${preset.example}`, env) as OpenAIChatModel;
    expect(model.id).toBe(`${name}:${preset.example}`);
    server.enqueue(recorded.reply);

    const response = await call(model, recorded.stream ?? false);

    recorded.expect(response);
    const sent = server.requests[0];
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers.authorization).toBe(keyVar ? `Bearer ${key}` : undefined);
    const body = sent?.body as Record<string, unknown>;
    expect(body.model).toBe(preset.example);
    expect(body[preset.quirks.maxTokensField]).toBe(64);
    const other = preset.quirks.maxTokensField === "max_tokens" ? "max_completion_tokens" : "max_tokens";
    expect(body[other]).toBeUndefined();
    if (recorded.stream)
      expect(body.stream_options).toEqual(preset.quirks.streamUsage ? { include_usage: true } : undefined);
  });

  it.each(names.filter((n) => keyVariables(n).length > 0 && !("keyOptional" in OPENAI_PRESETS[n])))(
    "%s at the vendor's own URL without its key is a ConfigError naming the variable",
    (name) => {
      const attempt = () => resolveModel(`${name}:${OPENAI_PRESETS[name].example}`, {});
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(keyVariables(name)[0] as string);
    },
  );

  it("vLLM and llama.cpp on their default local port need no key, and send one when set", async () => {
    expect(() => resolveModel("vllm:Qwen/Qwen2.5-7B-Instruct", {})).not.toThrow();
    expect(() => resolveModel("llamacpp:default", {})).not.toThrow();
    const model = resolveModel("vllm:m", { VLLM_BASE_URL: `${server.url}/v1` });
    server.enqueue(GENERIC.reply);
    await call(model, false);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("Together reads its second key variable too", () => {
    expect(() => resolveModel("together:m", { TOGETHER_AI_API_KEY: "k-123456" })).not.toThrow();
  });

  it("servers on your own machine cost nothing; vendors' listed models are priced", () => {
    for (const name of ["ollama", "lmstudio", "vllm", "llamacpp"] as const)
      expect(priceOf(name, "any")).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(priceOf("mistral", "mistral-large-latest")).toMatchObject({ inputPerMTok: 2 });
  });
});

describe("Mistral's recorded wire", () => {
  it("a streamed reasoning answer (content sent as thinking and text parts) keeps both", async () => {
    const model = resolveModel("mistral:magistral-medium-latest", {
      MISTRAL_BASE_URL: `${server.url}/v1`,
      MISTRAL_API_KEY: "k-123456",
    });
    server.enqueue(firstOf("test_mistral-test_mistral_model_thinking_part_iter"));
    const response = await call(model, true);
    expect(response.reasoning?.[0]?.text).toMatch(/^Okay, the user is asking how to cross the street/);
    expect(response.text.length).toBeGreaterThan(100);
    expect(response.text).not.toContain("Okay, the user");
    expect(server.requests[0]?.body).not.toHaveProperty("stream_options");
  });

  it("replays a recorded tool conversation: Mistral's 9-character ids are kept, other providers' rewritten to 9", async () => {
    const exchanges = loadCassette<{ messages: { tool_call_id?: string }[] }>(
      "test_mistral-test_image_as_binary_content_tool_response",
    );
    const model = resolveModel("mistral:mistral-large-latest", {
      MISTRAL_BASE_URL: `${server.url}/v1`,
      MISTRAL_API_KEY: "k-123456",
    });
    server.enqueue(replyOf(exchanges[0]));
    const first = await call(model, false);
    const id = first.toolCalls[0]?.id ?? "";
    expect(id).toBe("FI5qQGzDE");

    const rules = (model as OpenAIChatModel).quirks.toolCallIds;
    const foreign: Message[] = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "toolu_01A09q90qw90lq917835lq9", name: "a", arguments: "{}" },
          { id: "call_abc", name: "b", arguments: "{}" },
          { id, name: "c", arguments: "{}" },
        ],
      },
      { role: "tool", toolCallId: "toolu_01A09q90qw90lq917835lq9", toolName: "a", content: "1" },
      { role: "tool", toolCallId: "call_abc", toolName: "b", content: "2" },
      { role: "tool", toolCallId: id, toolName: "c", content: "3" },
    ];
    const fixed = normalizeToolCallIds(foreign, rules);
    const again = normalizeToolCallIds(foreign, rules);
    const ids = fixed.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
    expect(ids[2]).toBe(id);
    for (const rewritten of ids) expect(rewritten).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(new Set(ids).size).toBe(3);
    expect(
      fixed.filter((m) => m.role === "tool").map((m) => (m as { toolCallId: string }).toolCallId),
    ).toEqual(ids);
    expect(again).toEqual(fixed);
  });
});
