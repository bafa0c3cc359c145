import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { encodingFor, estimateTokens, TokenCounter } from "glassloop/memory";
import { describe, expect, it } from "vitest";
import { CHARS_PER_TOKEN } from "./tokens.js";

describe("token counting", () => {
  it("picks the BPE encoding for OpenAI-family ids and the estimate for others", () => {
    expect(encodingFor("openai:gpt-4o-mini")).toBe("o200k_base");
    expect(encodingFor("gpt-4.1")).toBe("o200k_base");
    expect(encodingFor("openai:o3-mini")).toBe("o200k_base");
    expect(encodingFor("openai:gpt-4")).toBe("cl100k_base");
    expect(encodingFor("openai:gpt-3.5-turbo")).toBe("cl100k_base");
    expect(encodingFor("anthropic:claude-sonnet-4-5")).toBe("estimate");
    expect(encodingFor("ollama:llama3.2")).toBe("estimate");
    expect(encodingFor("scripted:test")).toBe("estimate");
  });

  it("counts exactly with the real tokenizer for OpenAI models", async () => {
    const counter = await TokenCounter.forModel("openai:gpt-4o");
    expect(counter.encoding).toBe("o200k_base");
    expect(counter.text("hello world")).toBe(2);
    const old = await TokenCounter.forModel("openai:gpt-4");
    expect(old.text("hello world")).toBe(2);
  });

  it("estimates by characters for other models, and calibrates with the provider's counts", async () => {
    const counter = await TokenCounter.forModel("anthropic:claude-x");
    const text = "a".repeat(70);
    expect(counter.text(text)).toBe(estimateTokens(text));
    expect(estimateTokens(text)).toBe(Math.ceil(70 / CHARS_PER_TOKEN));
    const request = { messages: [{ role: "user" as const, content: text }] };
    const before = counter.request(request);
    counter.calibrate(request, before * 2);
    expect(counter.ratio).toBeCloseTo(2, 5);
    expect(counter.request(request)).toBe(before * 2);
    // Absurd reports are bounded, not trusted.
    counter.calibrate(request, before * 1000);
    expect(counter.ratio).toBeLessThanOrEqual(4);
    counter.calibrate(request, 0);
    expect(counter.ratio).toBeLessThanOrEqual(4);
  });

  it("loads the tokenizer only when a counter needs it: importing glassloop and glassloop/memory stays light", () => {
    const hook =
      "data:text/javascript,import{register}from'node:module';register(\"data:text/javascript,export async function resolve(s,c,n){if(s.includes('gpt-tokenizer'))process._rawDebug('LOADED '+s);return n(s,c)}\")";
    const index = fileURLToPath(new URL("../index.ts", import.meta.url));
    const memory = fileURLToPath(new URL("../entries/memory.ts", import.meta.url));
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        hook,
        "--input-type=module",
        "-e",
        `await import(${JSON.stringify(index)}); const m = await import(${JSON.stringify(memory)}); process._rawDebug("IMPORTED"); await m.TokenCounter.forModel("openai:gpt-4o-mini");`,
      ],
      { encoding: "utf8" },
    );
    const lines = child.stderr.split("\n").filter((l) => l === "IMPORTED" || l.startsWith("LOADED"));
    expect(lines).toEqual(["IMPORTED", "LOADED gpt-tokenizer/encoding/o200k_base"]);
  });
});
