import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConfigError } from "glassloop";
import { describe, expect, it } from "vitest";
import { checkGgufFile } from "./download.js";
import { modelCacheDir, parseLocalModelName } from "./name.js";

describe("parseLocalModelName", () => {
  it("resolves file paths, expanding ~", () => {
    expect(parseLocalModelName("./models/m.gguf")).toEqual({
      kind: "file",
      path: path.resolve("models/m.gguf"),
    });
    expect(parseLocalModelName("/abs/m.gguf")).toEqual({ kind: "file", path: "/abs/m.gguf" });
    expect(parseLocalModelName("~/m.gguf")).toEqual({
      kind: "file",
      path: path.join(os.homedir(), "m.gguf"),
    });
  });

  it("accepts hf:<user>/<repo>/<file>.gguf and hf:<user>/<repo>:<quant>", () => {
    expect(
      parseLocalModelName("hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf"),
    ).toEqual({
      kind: "hf",
      uri: "hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf",
    });
    expect(parseLocalModelName("hf:user/repo:Q4_K_M")).toEqual({ kind: "hf", uri: "hf:user/repo:Q4_K_M" });
  });

  it("rejects an empty name or an incomplete hf: name with a ConfigError showing the right form", () => {
    expect(() => parseLocalModelName(" ")).toThrow(ConfigError);
    expect(() => parseLocalModelName("hf:just-a-repo")).toThrow(/hf:<user>\/<repo>\/<file>\.gguf/);
    expect(() => parseLocalModelName("hf:user/repo/readme.md")).toThrow(ConfigError);
  });
});

describe("modelCacheDir", () => {
  it("prefers GLASSLOOP_MODELS_DIR, then XDG_CACHE_HOME, then ~/.cache", () => {
    expect(modelCacheDir({ GLASSLOOP_MODELS_DIR: "/m", XDG_CACHE_HOME: "/x" })).toBe("/m");
    expect(modelCacheDir({ XDG_CACHE_HOME: "/x" })).toBe("/x/glassloop/models");
    expect(modelCacheDir({})).toBe(path.join(os.homedir(), ".cache", "glassloop", "models"));
  });
});

describe("checkGgufFile", () => {
  it("names a missing path, a directory, and a file that is not GGUF", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "glassloop-gguf-"));
    await expect(checkGgufFile(path.join(dir, "absent.gguf"))).rejects.toMatchObject({
      code: "local_model_not_found",
      message: expect.stringContaining("absent.gguf"),
    });
    await expect(checkGgufFile(dir)).rejects.toMatchObject({ code: "local_model_not_found" });
    const text = path.join(dir, "notes.gguf");
    await writeFile(text, "hello, I am not a model");
    await expect(checkGgufFile(text)).rejects.toThrow(/not a GGUF model file/);
    const empty = path.join(dir, "empty.gguf");
    await writeFile(empty, "");
    await expect(checkGgufFile(empty)).rejects.toThrow(/not a GGUF model file/);
    const gguf = path.join(dir, "ok.gguf");
    await writeFile(gguf, "GGUF\u0003\u0000\u0000\u0000");
    await expect(checkGgufFile(gguf)).resolves.toBeUndefined();
  });
});
