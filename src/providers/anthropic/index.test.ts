import { ConfigError, resolveModel } from "glassloop";
import { costOf } from "glassloop/models";
import { describe, expect, it } from "vitest";
import { AnthropicModel, anthropic } from "./index.js";

describe('"anthropic:" model strings', () => {
  it("resolve with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, priced from the table", () => {
    const model = resolveModel("anthropic:claude-sonnet-4-5-20250929", {
      ANTHROPIC_API_KEY: "sk-ant-xyz-123456",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:8080",
    });
    expect(model).toBeInstanceOf(AnthropicModel);
    expect(model.id).toBe("anthropic:claude-sonnet-4-5-20250929");
    expect((model as AnthropicModel).url).toBe("http://127.0.0.1:8080/v1/messages");
    expect(model.price).toEqual({
      inputPerMTok: 3,
      cachedInputPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
      outputPerMTok: 15,
    });
  });

  it("without a key fail with a ConfigError that names the variable", () => {
    expect(() => resolveModel("anthropic:claude-haiku-4-5", {})).toThrow(ConfigError);
    expect(() => resolveModel("anthropic:claude-haiku-4-5", {})).toThrow(/set ANTHROPIC_API_KEY/);
  });

  it("price cached reads at the cached rate (inputTokens includes them)", () => {
    const model = anthropic("claude-haiku-4-5", { apiKey: "sk-ant-xyz-123456", env: {} });
    const price = model.price;
    if (!price) throw new Error("claude-haiku-4-5 should have a price");
    // 1,000 fresh + 9,000 cached input tokens, 1,000 output tokens.
    const cost = costOf({ inputTokens: 10_000, cachedInputTokens: 9_000, outputTokens: 1_000 }, price);
    expect(cost).toBeCloseTo((1_000 * 1 + 9_000 * 0.1 + 1_000 * 5) / 1e6, 12);
  });

  it("an unknown model has no price unless one is given", () => {
    expect(anthropic("claude-future-9", { apiKey: "k-123456789", env: {} }).price).toBeUndefined();
    const price = { inputPerMTok: 1, outputPerMTok: 2 };
    expect(anthropic("claude-future-9", { apiKey: "k-123456789", env: {}, price }).price).toEqual(price);
  });
});
