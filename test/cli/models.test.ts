import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCli, tempCwd } from "../helpers/cli.js";

describe("glassloop models", () => {
  it("shows which providers are set up, never a key, and which model run would use", async () => {
    const key = "sk-test-models-secret-42";
    const run = await runCli(["models"], { cwd: tempCwd(), env: cleanEnv({ OPENAI_API_KEY: key }) });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✓ openai +OPENAI_API_KEY is set \(default model openai:gpt-4o-mini\)/);
    expect(run.stdout).toMatch(/· anthropic +ANTHROPIC_API_KEY not set/);
    expect(run.stdout).toMatch(/· ollama +not reachable at http:\/\/127\.0\.0\.1:9/);
    expect(run.stdout).toContain("glassloop run would use openai:gpt-4o-mini (OPENAI_API_KEY is set)");
    expect(run.stdout).not.toContain(key);
  });

  it("finds a running Ollama and its models", async () => {
    const ollama = createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url === "/api/tags" ? { models: [{ name: "llama3.2:latest" }] } : {}));
    });
    await new Promise<void>((resolve) => ollama.listen(0, "127.0.0.1", resolve));
    try {
      const host = `127.0.0.1:${(ollama.address() as AddressInfo).port}`;
      const run = await runCli(["models", "--json"], {
        cwd: tempCwd(),
        env: cleanEnv({ OLLAMA_HOST: host }),
      });
      const result = JSON.parse(run.stdout);
      expect(result.selected).toEqual({ model: "ollama:llama3.2:latest", source: "Ollama is running" });
      expect(result.providers).toContainEqual({
        provider: "ollama",
        configured: true,
        detail: `running at http://${host}: ollama:llama3.2:latest`,
      });
    } finally {
      ollama.close();
    }
  });

  it("with nothing configured, says what to do", async () => {
    const run = await runCli(["models"], { cwd: tempCwd(), env: cleanEnv() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("glassloop run would use nothing: no model is configured or reachable");
  });
});
