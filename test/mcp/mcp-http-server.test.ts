import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Agent, tool } from "glassloop";
import { BoundedEventStore, createAgentMcpHandler, serveAgentOverHttp } from "glassloop/mcp";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

async function connected(url: string, headers?: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "sdk-test-client", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : undefined),
  );
  return client;
}

const initialize = (host = "127.0.0.1", extra: Record<string, string> = {}) =>
  new Request(`http://${host}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      host,
      ...extra,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  });

describe("an agent served over streamable HTTP (glassloop mcp serve --http)", () => {
  it("answers the SDK's client with the agent's output, and tells a caller with a progress token each step", async () => {
    const agent = new Agent({ name: "echo", model: new FunctionModel(() => ({ text: "the answer" })) });
    const running = await serveAgentOverHttp(agent);
    const client = await connected(running.url);
    const progress: string[] = [];
    const result = await client.callTool({ name: "echo", arguments: { input: "hi" } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ""),
    });
    expect(result.content).toEqual([{ type: "text", text: "the answer" }]);
    expect(progress).toContain("step 1");
    await client.close();
    await running.close();
  });

  it("declares an object output schema and answers with structuredContent", async () => {
    const agent = new Agent({
      name: "typed",
      model: new ScriptedModel([{ toolCalls: [{ name: "final_result", args: { city: "Oslo", score: 3 } }] }]),
      output: z.object({ city: z.string(), score: z.number() }),
    });
    const running = await serveAgentOverHttp(agent);
    const client = await connected(running.url);
    const { tools } = await client.listTools();
    expect(tools[0]?.outputSchema).toMatchObject({ properties: { city: { type: "string" } } });
    const result = await client.callTool({ name: "typed", arguments: { input: "go" } });
    expect(result.structuredContent).toEqual({ city: "Oslo", score: 3 });
    await client.close();
    await running.close();
  });

  it("aborts the run when the client cancels the call", async () => {
    let aborted = false;
    const wait = tool({
      name: "wait",
      description: "Waits until aborted.",
      input: z.object({}),
      run: (_args, { signal }) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
    });
    const agent = new Agent({
      name: "slow",
      model: new ScriptedModel([{ toolCalls: [{ name: "wait", args: {} }] }, { text: "never" }]),
      tools: [wait],
    });
    const running = await serveAgentOverHttp(agent);
    const client = await connected(running.url);
    const controller = new AbortController();
    const call = client.callTool({ name: "slow", arguments: { input: "x" } }, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort("enough"), 200);
    await expect(call).rejects.toThrow();
    await expect.poll(() => aborted, { timeout: 5_000, interval: 20 }).toBe(true);
    await client.close();
    await running.close();
  });

  it("refuses a foreign Host or Origin (DNS rebinding) and a missing or wrong bearer token", async () => {
    const agent = new Agent({ name: "echo", model: new FunctionModel(() => ({ text: "x" })) });
    const handler = createAgentMcpHandler(agent, { tokens: ["s3cret"] });
    expect((await handler.fetch(initialize("evil.example.com"))).status).toBe(403);
    expect(
      (await handler.fetch(initialize("127.0.0.1:80", { origin: "http://evil.example.com" }))).status,
    ).toBe(403);
    const missing = await handler.fetch(initialize());
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await handler.fetch(initialize("127.0.0.1", { authorization: "Bearer nope" }))).status).toBe(401);
    const ok = await handler.fetch(initialize("127.0.0.1", { authorization: "Bearer s3cret" }));
    expect(ok.status).toBe(200);
    expect(ok.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(handler.sessions()).toBe(1);
    await handler.close();
    expect(handler.sessions()).toBe(0);
  });

  it("answers 404 for an unknown session and 503 past maxSessions", async () => {
    const agent = new Agent({ name: "echo", model: new FunctionModel(() => ({ text: "x" })) });
    const handler = createAgentMcpHandler(agent, { maxSessions: 1 });
    expect((await handler.fetch(initialize())).status).toBe(200);
    expect((await handler.fetch(initialize())).status).toBe(503);
    const unknown = initialize("127.0.0.1", { "mcp-session-id": "no-such-session" });
    expect((await handler.fetch(unknown)).status).toBe(404);
    await handler.close();
  });

  it("accepts a client with the right token end to end", async () => {
    const agent = new Agent({ name: "echo", model: new FunctionModel(() => ({ text: "fine" })) });
    const running = await serveAgentOverHttp(agent, { tokens: ["t0ken"] });
    await expect(connected(running.url)).rejects.toThrow();
    const client = await connected(running.url, { authorization: "Bearer t0ken" });
    const result = await client.callTool({ name: "echo", arguments: { input: "x" } });
    expect(result.content).toEqual([{ type: "text", text: "fine" }]);
    await client.close();
    await running.close();
  });

  it("keeps each stream's last messages for a client that reconnects with Last-Event-ID, and no more", async () => {
    const store = new BoundedEventStore(3, 2);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await store.storeEvent("s1", { jsonrpc: "2.0", method: `m${i}` }));
    const replayed: string[] = [];
    const stream = await store.replayEventsAfter(ids[2] ?? "", {
      send: async (_id, message) => {
        replayed.push((message as { method: string }).method);
      },
    });
    expect(stream).toBe("s1");
    expect(replayed).toEqual(["m3", "m4"]);
    await store.storeEvent("s2", { jsonrpc: "2.0", method: "x" });
    await store.storeEvent("s3", { jsonrpc: "2.0", method: "y" });
    // Two streams at most: the oldest (s1) is gone.
    expect(await store.getStreamIdForEventId(ids[4] ?? "")).toBeUndefined();
  });

  it("serves over HTTP through `glassloop mcp serve <module> --http` with a token from GLASSLOOP_MCP_TOKENS", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/cli/main.ts",
        "mcp",
        "serve",
        "test/mcp/fixtures/calculator-agent.ts",
        "--http",
      ],
      { env: { ...process.env, GLASSLOOP_MCP_TOKENS: "cli-token" }, stdio: ["ignore", "ignore", "pipe"] },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let said = "";
        child.stderr?.on("data", (chunk: Buffer) => {
          said += chunk.toString();
          const found = /at (http:\/\/\S+\/mcp)/.exec(said);
          if (found?.[1]) resolve(found[1]);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${said}`)));
      });
      await expect(connected(url)).rejects.toThrow();
      const client = await connected(url, { authorization: "Bearer cli-token" });
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(1);
      await client.close();
    } finally {
      child.kill("SIGTERM");
    }
  }, 30_000);
});
