/**
 * A newcomer with no model configured: glassloop offers to download a small local model, on a
 * terminal (asked, default no) or with --yes, from HF_ENDPOINT (here a server on 127.0.0.1 that
 * serves the tests' tiny GGUF under the default model's name). Nothing is downloaded without consent.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { probeLocalEngine } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_LOCAL_MODEL } from "../../src/cli/local-offer.js";
import { cleanEnv, cliArgv, runCli, tempCwd } from "../helpers/cli.js";
import { spawnPty } from "../helpers/pty.js";
import { TINY_MODEL, tinyGgufBytes } from "../helpers/tiny-gguf.js";

const engineProblem = (await probeLocalEngine())?.message ?? null;
if (engineProblem)
  console.warn(`[local-offer.test] SKIPPED: node-llama-cpp cannot run here: ${engineProblem}`);

/** Where node-llama-cpp fetches `hf:<user>/<repo>/<file>` from an endpoint. */
const FILE_PATH = `/${DEFAULT_LOCAL_MODEL.uri.slice(3).replace(/^([^/]+\/[^/]+)\//, "$1/resolve/main/")}`;
const bytes = Buffer.from(tinyGgufBytes());
let server: http.Server;
let endpoint: string;
let requests: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    requests.push(`${req.method} ${path}`);
    if (req.method === "HEAD" && path === "/") return void res.writeHead(200).end();
    if (path !== FILE_PATH) return void res.writeHead(404).end();
    res.writeHead(200, { "content-length": bytes.length, "content-type": "application/octet-stream" });
    res.end(req.method === "HEAD" ? undefined : bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  requests = [];
});

/** No key, no Ollama, an empty model cache of its own, and the local "Hugging Face". */
function newcomer(): { env: NodeJS.ProcessEnv; models: string } {
  const models = mkdtempSync(join(tmpdir(), "glassloop-offer-models-"));
  return { env: cleanEnv({ GLASSLOOP_MODELS_DIR: models, HF_ENDPOINT: endpoint }), models };
}
const downloads = () => requests.filter((r) => r === `GET ${FILE_PATH}`);

describe.skipIf(engineProblem !== null)("the first run without a model", () => {
  it("on a terminal asks first; yes downloads with a progress bar, and the run uses the model", async () => {
    const { env, models } = newcomer();
    const pty = spawnPty(cliArgv("run", "--tools", "calculator", "What is six times seven?"), {
      cwd: tempCwd(),
      env,
    });
    try {
      await pty.waitFor("Download it now? [y/N]", { timeoutMs: 30_000 });
      expect(pty.output).toContain(DEFAULT_LOCAL_MODEL.about);
      expect(pty.output).toContain(`from ${endpoint} into ${models}`);
      expect(downloads()).toEqual([]);
      pty.write("y\r");
      await pty.waitFor("100%", { timeoutMs: 30_000 });
      expect(await pty.exited).toBe(0);
      expect(downloads().length).toBeGreaterThan(0);
      const [file] = readdirSync(models).filter((name) => name.endsWith(".gguf"));
      expect(readFileSync(join(models, file as string)).equals(bytes)).toBe(true);
      expect(pty.output).toContain(TINY_MODEL.answer);
    } finally {
      pty.kill();
    }
    // The next run finds the downloaded file by itself: no question, no download.
    requests = [];
    const again = await runCli(["models"], { cwd: tempCwd(), env, timeoutMs: 30_000 });
    expect(again.stdout + again.stderr).toContain(models);
    expect(downloads()).toEqual([]);
  }, 120_000);

  it("on a terminal, any answer but yes downloads nothing and says what else works", async () => {
    const { env, models } = newcomer();
    const pty = spawnPty(cliArgv("run", "hello"), { cwd: tempCwd(), env });
    try {
      await pty.waitFor("Download it now? [y/N]", { timeoutMs: 30_000 });
      pty.write("\r");
      expect(await pty.exited).toBe(2);
      expect(pty.output).toContain("Not downloaded.");
      expect(pty.output).toContain("no model is configured or reachable");
      expect(downloads()).toEqual([]);
      expect(readdirSync(models)).toEqual([]);
    } finally {
      pty.kill();
    }
  }, 60_000);

  it("without a terminal it never asks nor downloads, and names --yes", async () => {
    const { env, models } = newcomer();
    const run = await runCli(["run", "hello"], { cwd: tempCwd(), env, timeoutMs: 30_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain("Download it now?");
    expect(run.stderr).toContain('glassloop run --yes "..."');
    expect(requests).toEqual([]);
    expect(readdirSync(models)).toEqual([]);
  }, 60_000);

  it("--yes downloads without asking, for scripts (chat too)", async () => {
    const { env, models } = newcomer();
    // Stdin is not a terminal and ends at once: chat downloads, then leaves without a question.
    const run = await runCli(["chat", "--yes"], { cwd: tempCwd(), env, timeoutMs: 60_000 });
    expect(run.stderr).not.toContain("Download it now?");
    expect(run.stderr).toMatch(/Downloading hf:Qwen\/.* \([\d.]+ MB\)\.\.\.\n/);
    expect(run.stderr).toContain("Downloaded hf:Qwen/");
    expect(run.code, run.stderr).toBe(0);
    expect(downloads().length).toBeGreaterThan(0);
    expect(readdirSync(models).some((name) => name.endsWith(".gguf"))).toBe(true);
  }, 90_000);

  it("--yes without a network fails in seconds with what to do instead", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { env, models } = newcomer();
    const run = await runCli(["run", "--yes", "hello"], {
      cwd: tempCwd(),
      env: { ...env, HF_ENDPOINT: `http://127.0.0.1:${port}/` },
      timeoutMs: 30_000,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`http://127.0.0.1:${port}/ is unreachable`);
    expect(run.stderr).toContain("local:/path/to/file.gguf");
    expect(existsSync(models) ? readdirSync(models).filter((n) => n.endsWith(".gguf")) : []).toEqual([]);
  }, 60_000);
});
