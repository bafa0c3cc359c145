import { ConfigError, resolveModel } from "glassloop";
import { GeminiModel, OpenAIResponsesModel } from "glassloop/models";
import { describe, expect, it } from "vitest";

describe('"google:" and "openai-responses:" model strings', () => {
  it("resolve with GEMINI_API_KEY, else GOOGLE_API_KEY, priced from the table", () => {
    const model = resolveModel("google:gemini-2.5-flash", { GOOGLE_API_KEY: "g-key-123456" });
    expect(model).toBeInstanceOf(GeminiModel);
    expect(model.id).toBe("google:gemini-2.5-flash");
    expect(model.price).toEqual({ inputPerMTok: 0.3, cachedInputPerMTok: 0.075, outputPerMTok: 2.5 });
    expect(() => resolveModel("google:gemini-2.5-flash", {})).toThrow(/GEMINI_API_KEY/);
    expect(() => resolveModel("google:gemini-2.5-flash", {})).toThrow(ConfigError);
  });

  it("openai-responses: reads OPENAI_API_KEY and takes OpenAI's prices", () => {
    const model = resolveModel("openai-responses:gpt-5", { OPENAI_API_KEY: "sk-test-123456" });
    expect(model).toBeInstanceOf(OpenAIResponsesModel);
    expect(model.price).toMatchObject({ inputPerMTok: 1.25, outputPerMTok: 10 });
    expect(() => resolveModel("openai-responses:gpt-5", {})).toThrow(/OPENAI_API_KEY/);
    // A compatible server elsewhere may need no key.
    expect(() =>
      resolveModel("openai-responses:m", { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" }),
    ).not.toThrow();
  });
});
