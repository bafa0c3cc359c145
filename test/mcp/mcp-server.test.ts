import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Agent, tool } from "glassloop";
import { createAgentServer, McpClient } from "glassloop/mcp";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const add = tool({
  name: "add",
  description: "Adds.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

async function linkedClient(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "sdk-test-client", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

describe("an agent served over MCP, called with the SDK's own client", () => {
  it("lists one tool and answers a call with the agent's output", async () => {
    const agent = new Agent({
      name: "calculator",
      model: new ScriptedModel([{ toolCalls: [{ name: "add", args: { a: 200, b: 10 } }] }, { text: "210" }]),
      tools: [add],
    });
    const client = await linkedClient(createAgentServer(agent));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["calculator"]);
    expect(tools[0]?.inputSchema).toMatchObject({
      properties: { input: { type: "string" } },
      required: ["input"],
    });
    const result = await client.callTool({ name: "calculator", arguments: { input: "Add 200 and 10" } });
    expect(result.content).toEqual([{ type: "text", text: "210" }]);
    expect(result.isError).toBeFalsy();
    await client.close();
  });

  it("returns a failed run as a tool error the client can read", async () => {
    const agent = new Agent({ name: "broke", model: new ScriptedModel([{ error: "provider down" }]) });
    const client = await linkedClient(createAgentServer(agent));
    const result = await client.callTool({ name: "broke", arguments: { input: "x" } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/model_error: Model call failed: provider down/);
    await client.close();
  });

  it("serves over stdio through `glassloop mcp serve <module>` (the real CLI in a child process)", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", "tsx", "src/cli/main.ts", "mcp", "serve", "test/mcp/fixtures/calculator-agent.ts"],
      stderr: "ignore",
    });
    const client = new Client({ name: "sdk-test-client", version: "1.0.0" });
    await client.connect(transport);
    const result = await client.callTool({ name: "calculator", arguments: { input: "Add 200 and 10" } });
    expect(result.content).toEqual([{ type: "text", text: "210" }]);
    await client.close();
  });
});

describe("tool list refresh", () => {
  it("follows notifications/tools/list_changed: a new tool is offered to the model at the next step", async () => {
    const server = new McpServer(
      { name: "growing", version: "1.0.0" },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.registerTool(
      "ping",
      { description: "Pings, and makes pong appear.", inputSchema: {} },
      async () => {
        server.registerTool("pong", { description: "Pongs.", inputSchema: {} }, async () => ({
          content: [{ type: "text", text: "ping" }],
        }));
        return { content: [{ type: "text", text: "pong" }] };
      },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = await McpClient.connect({ name: "growing", transport: clientSide });
    let changed!: () => void;
    const refreshed = new Promise<void>((resolve) => {
      changed = resolve;
    });
    mcp.onChange(() => changed());
    // Holds the turn open until the client has re-read the list, so the next step is deterministic.
    const waitForRefresh = tool({
      name: "wait",
      description: "Waits.",
      input: z.object({}),
      run: () => refreshed.then(() => "ok"),
    });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "ping", args: {} },
          { name: "wait", args: {} },
        ],
      },
      { toolCalls: [{ name: "pong", args: {} }] },
      { text: "done" },
    ]);
    const agent = new Agent({ model, toolSources: [mcp], tools: [waitForRefresh] });
    const result = await agent.run("go");
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["wait", "ping"]);
    expect(model.requests[1]?.tools.map((t) => t.name)).toEqual(["wait", "ping", "pong"]);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "pong",
      "ok",
      "ping",
    ]);
    await agent.close();
  });
});

describe("glassloop mcp serve: bad usage", () => {
  it("exits 2 with a clear message for a module that exports no agent", async () => {
    const { spawnSync } = await import("node:child_process");
    const run = spawnSync(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", "mcp", "serve", "package.json"],
      {
        encoding: "utf8",
      },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/not an agent|export/);
  });
});
