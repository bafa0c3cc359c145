import { inspect } from "node:util";
import { Agent, ConfigError, resolveModel } from "glassloop";
import { OpenAIChatModel, priceOf, setModelPrice } from "glassloop/models";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startWireServer } from "../../test/helpers/wire-server.js";
import { ollamaBaseURL } from "./preset-table.js";
import { presetModel } from "./presets.js";

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("model strings", () => {
  it("resolve every preset with its key variable", () => {
    const env = {
      OPENAI_API_KEY: "sk-o-123456",
      OPENROUTER_API_KEY: "sk-or-123456",
      DEEPSEEK_API_KEY: "sk-d-123456",
      GROQ_API_KEY: "gsk-123456",
    };
    for (const [id, provider] of [
      ["openai:gpt-4o-mini", "openai"],
      ["ollama:llama3.2", "ollama"],
      ["openrouter:openai/gpt-4o-mini", "openrouter"],
      ["deepseek:deepseek-chat", "deepseek"],
      ["groq:llama-3.3-70b-versatile", "groq"],
    ] as const) {
      const model = resolveModel(id, env);
      expect(model).toBeInstanceOf(OpenAIChatModel);
      expect(model.id).toBe(id);
      expect((model as OpenAIChatModel).provider).toBe(provider);
    }
  });

  it.each([
    ["openai:gpt-4o-mini", "OPENAI_API_KEY"],
    ["openrouter:x/y", "OPENROUTER_API_KEY"],
    ["deepseek:deepseek-chat", "DEEPSEEK_API_KEY"],
    ["groq:llama-3.3-70b-versatile", "GROQ_API_KEY"],
  ])("%s without a key is a ConfigError naming %s", (id, variable) => {
    const attempt = () => resolveModel(id, { [variable]: "  " });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(variable);
  });

  it("an empty model name is a clear error", () => {
    expect(() => resolveModel("openai:", { OPENAI_API_KEY: "sk-123456" })).toThrow(/names no model/);
  });

  it("a changed base URL (a local server) makes the key optional", () => {
    expect(() => resolveModel("openai:local", { OPENAI_BASE_URL: "http://127.0.0.1:8080/v1" })).not.toThrow();
    expect(() => presetModel("groq", "x", { baseURL: "http://127.0.0.1:1/v1", env: {} })).not.toThrow();
  });

  it("declares quirks per preset, never from the URL", () => {
    const env = {
      OPENAI_API_KEY: "k-123456",
      GROQ_API_KEY: "k-123456",
      OPENAI_BASE_URL: "https://api.groq.com/openai/v1",
    };
    const openai = resolveModel("openai:m", env) as OpenAIChatModel;
    expect(openai.quirks).toMatchObject({
      maxTokensField: "max_completion_tokens",
      recoverToolUseFailed: false,
    });
    const groq = resolveModel("groq:m", env) as OpenAIChatModel;
    expect(groq.quirks).toMatchObject({
      maxTokensField: "max_tokens",
      recoverToolUseFailed: true,
      fillToolCallIds: true,
    });
    const custom = presetModel("openai", "m", { env, quirks: { streamUsage: false } });
    expect(custom.quirks).toMatchObject({ streamUsage: false, maxTokensField: "max_completion_tokens" });
  });

  it("reads OLLAMA_HOST the way Ollama does", () => {
    expect(ollamaBaseURL("127.0.0.1:11434")).toBe("http://127.0.0.1:11434/v1");
    expect(ollamaBaseURL("0.0.0.0")).toBe("http://127.0.0.1:11434/v1");
    expect(ollamaBaseURL("http://gpu-box:9999/")).toBe("http://gpu-box:9999/v1");
    expect(ollamaBaseURL("https://ollama.example.com/v1")).toBe("https://ollama.example.com/v1");
    expect(ollamaBaseURL("http://host:1/proxy")).toBe("http://host:1/proxy/v1");
  });

  it("a base URL that is not http(s) is a ConfigError at construction, not a retried network error", () => {
    for (const baseURL of ["localhost:8080/v1", "ftp://host/v1", "not a url"])
      expect(() => new OpenAIChatModel({ model: "m", baseURL })).toThrow(ConfigError);
    expect(
      () =>
        new OpenAIChatModel({
          model: "m",
          baseURL: "http://h/v1?key=sk-in-url-123",
          apiKey: "sk-in-url-123",
        }),
    ).not.toThrow();
  });

  it("a hand-built model is priced from the table when its provider and model are known", () => {
    expect(new OpenAIChatModel({ model: "gpt-4o-mini", baseURL: "http://h/v1" }).price).toEqual(
      priceOf("openai", "gpt-4o-mini"),
    );
    expect(
      new OpenAIChatModel({ model: "gpt-4o-mini", baseURL: "http://h/v1", provider: "gw" }).price,
    ).toBeUndefined();
  });

  it("never shows the key: not in JSON, not in inspect", () => {
    const model = resolveModel("openai:gpt-4o", { OPENAI_API_KEY: "sk-secret-never-show-me" });
    expect(JSON.stringify(model)).not.toContain("sk-secret");
    expect(inspect(model, { depth: 5, showHidden: true })).not.toContain("sk-secret");
  });

  it('new Agent({ model: "openai:gpt-4o-mini" }) runs against OPENAI_BASE_URL', async () => {
    const server = await startWireServer();
    try {
      vi.stubEnv("OPENAI_API_KEY", "sk-env-key-123456");
      vi.stubEnv("OPENAI_BASE_URL", `${server.url}/v1`);
      server.enqueue({
        json: {
          choices: [{ index: 0, message: { role: "assistant", content: "Hello!" }, finish_reason: "stop" }],
          usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 },
        },
      });
      const agent = new Agent({ model: "openai:gpt-4o-mini", instructions: "Greet." });
      const result = await agent.run("hi");
      expect(result.output).toBe("Hello!");
      expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-env-key-123456");
      expect(server.requests[0]?.body).toMatchObject({ model: "gpt-4o-mini" });
      // Priced from the table: 1M in at $0.15, 1M out at $0.60.
      expect(result.usage.costUsd).toBeCloseTo(0.75, 6);
    } finally {
      await server.close();
    }
  });
});

describe("prices", () => {
  it("finds dated snapshots, treats Ollama as free, and can be overridden", () => {
    expect(priceOf("openai", "gpt-4o-2024-08-06")).toEqual(priceOf("openai", "gpt-4o"));
    expect(priceOf("anthropic", "claude-sonnet-4-5-20250929")?.inputPerMTok).toBe(3);
    expect(priceOf("ollama", "anything")).toEqual({ inputPerMTok: 0, outputPerMTok: 0 });
    expect(priceOf("openai", "no-such-model")).toBeUndefined();
    setModelPrice("openai:my-finetune", { inputPerMTok: 1, outputPerMTok: 2 });
    try {
      expect(presetModel("openai", "my-finetune", { env: { OPENAI_API_KEY: "k-123456" } }).price).toEqual({
        inputPerMTok: 1,
        outputPerMTok: 2,
      });
    } finally {
      setModelPrice("openai:my-finetune", undefined);
    }
    expect(priceOf("openai", "my-finetune")).toBeUndefined();
    expect(() => setModelPrice("gpt-4o", undefined)).toThrow(/provider:model/);
  });
});
