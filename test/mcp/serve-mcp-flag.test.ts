import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, runCli } from "../helpers/cli.js";
import { startServeProcess } from "../helpers/serve-process.js";

const MODULE = "test/mcp/fixtures/serve-module.ts";
const ALICE = "alice-token-0123456789";
const MCP_TOKEN = "mcp-only-token-0123456789";

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function serve(env: Record<string, string>, extra: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-serve-mcp-"));
  dirs.push(dir);
  const started = await startServeProcess(MODULE, join(dir, "store.db"), join(dir, "serve.db"), env, extra);
  children.push(started.child);
  return started;
}

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: "sdk-test-client", version: "1.0.0" });
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(
      new URL(`${url}mcp`),
      headers ? { requestInit: { headers } } : undefined,
    ),
  );
  return client;
}

describe("glassloop serve --mcp", () => {
  it("mounts the named agent at /mcp beside the chat API, behind the API's own tokens", async () => {
    const { url, stderr } = await serve({ GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}` }, [
      "--mcp",
      "calculator",
    ]);
    expect(stderr()).toContain(`MCP server for "calculator" at ${url}mcp (bearer tokens required)`);
    const client = await connect(url, ALICE);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["calculator"]);
    const result = await client.callTool({ name: "calculator", arguments: { input: "add 200 and 10" } });
    expect(result.content).toEqual([{ type: "text", text: "the sum is 210" }]);
    await client.close();
    // The chat API still answers beside it.
    const agents = await fetch(`${url}api/agents`, { headers: { authorization: `Bearer ${ALICE}` } });
    expect(agents.status).toBe(200);
    // Without a token, or with a wrong one, the MCP endpoint is closed.
    await expect(connect(url)).rejects.toThrow(/needs a bearer token|401/);
    await expect(connect(url, "not-a-known-token-0000")).rejects.toThrow(/needs a bearer token|401/);
  });

  it("takes GLASSLOOP_MCP_TOKENS instead of the API's tokens when set", async () => {
    const { url } = await serve(
      { GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}`, GLASSLOOP_MCP_TOKENS: MCP_TOKEN },
      ["--mcp", "echo"],
    );
    const client = await connect(url, MCP_TOKEN);
    const result = await client.callTool({ name: "echo", arguments: { input: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "echo" }]);
    await client.close();
    await expect(connect(url, ALICE)).rejects.toThrow(/needs a bearer token|401/);
  });

  it("is off without the flag, and refuses an agent the module does not have", async () => {
    const { url } = await serve({ GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}` }, []);
    const res = await fetch(`${url}mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(404);
    const cwd = process.cwd();
    const run = await runCli(["serve", resolve(MODULE), "--port", "0", "--mcp", "nobody"], {
      cwd,
      env: cleanEnv({ GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}` }),
      src: true,
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--mcp "nobody" names no agent of the module (it has calculator, echo)');
  });
});
