import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NoModelError, ollamaRoot, selectModel } from "./model-select.js";

const none = async () => undefined;
const ollamaWith = (models: string[]) => async () => models;

describe("model selection order", () => {
  const everything = {
    flag: "anthropic:claude-sonnet-4-5",
    env: {
      GLASSLOOP_MODEL: "groq:llama-3.3-70b-versatile",
      OPENAI_API_KEY: "sk-x",
      GLASSLOOP_LOCAL_MODEL: "/m.gguf",
    },
    config: { model: "deepseek:deepseek-chat" },
    probeOllama: ollamaWith(["llama3.2"]),
  };

  it("--model first", async () => {
    expect(await selectModel(everything)).toEqual({
      model: "anthropic:claude-sonnet-4-5",
      source: "--model",
    });
  });

  it("then GLASSLOOP_MODEL, then glassloop.config.json", async () => {
    const { flag: _, ...rest } = everything;
    expect(await selectModel(rest)).toEqual({
      model: "groq:llama-3.3-70b-versatile",
      source: "GLASSLOOP_MODEL",
    });
    const withoutEnv = { ...rest, env: { OPENAI_API_KEY: "sk-x" }, configPath: "/p/glassloop.config.json" };
    expect(await selectModel(withoutEnv)).toEqual({
      model: "deepseek:deepseek-chat",
      source: "/p/glassloop.config.json",
    });
  });

  it("then a provider with a key in the environment, in a fixed order", async () => {
    const base = { config: {}, probeOllama: ollamaWith(["llama3.2"]) };
    expect(await selectModel({ ...base, env: { ANTHROPIC_API_KEY: "a", GROQ_API_KEY: "g" } })).toEqual({
      model: "anthropic:claude-haiku-4-5",
      source: "ANTHROPIC_API_KEY is set",
    });
    expect((await selectModel({ ...base, env: { GROQ_API_KEY: "g", OPENAI_API_KEY: " " } })).model).toBe(
      "groq:llama-3.3-70b-versatile",
    );
  });

  it("then a running Ollama, then the embedded local model", async () => {
    expect(
      await selectModel({
        env: { GLASSLOOP_LOCAL_MODEL: "/m.gguf" },
        config: {},
        probeOllama: ollamaWith(["qwen2.5:7b", "llama3.2"]),
      }),
    ).toEqual({
      model: "ollama:qwen2.5:7b",
      source: "Ollama is running",
    });
    // Ollama up but without models does not count.
    expect(
      await selectModel({
        env: { GLASSLOOP_LOCAL_MODEL: "/m.gguf" },
        config: {},
        probeOllama: ollamaWith([]),
      }),
    ).toEqual({
      model: "local:/m.gguf",
      source: "GLASSLOOP_LOCAL_MODEL",
    });
  });

  it("a GGUF downloaded earlier to the model cache is the last resort", async () => {
    const dir = mkdtempSync(join(tmpdir(), "glassloop-models-"));
    writeFileSync(join(dir, "b.gguf"), "");
    writeFileSync(join(dir, "a.gguf"), "");
    writeFileSync(join(dir, "notes.txt"), "");
    expect(await selectModel({ env: { GLASSLOOP_MODELS_DIR: dir }, config: {}, probeOllama: none })).toEqual({
      model: `local:${join(dir, "a.gguf")}`,
      source: `downloaded earlier to ${dir}`,
    });
  });

  it("with none, a NoModelError that says what to do", async () => {
    const env = { GLASSLOOP_MODELS_DIR: "/nonexistent" };
    const error = await selectModel({ env, config: {}, probeOllama: none }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoModelError);
    expect((error as NoModelError).code).toBe("no_model");
  });

  it("reads OLLAMA_HOST as Ollama does", () => {
    expect(ollamaRoot({})).toBe("http://127.0.0.1:11434");
    expect(ollamaRoot({ OLLAMA_HOST: "0.0.0.0" })).toBe("http://127.0.0.1:11434");
    expect(ollamaRoot({ OLLAMA_HOST: "gpu-box:8000" })).toBe("http://gpu-box:8000");
  });
});
