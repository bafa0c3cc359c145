import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Agent } from "glassloop";
import { McpClient, type McpElicitation } from "glassloop/mcp";
import { ScriptedModel } from "glassloop/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

const everything = {
  command: process.execPath,
  args: ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
};

describe("MCP client beyond tools, against @modelcontextprotocol/server-everything over stdio", () => {
  let mcp: McpClient;
  const questions: McpElicitation[] = [];

  beforeAll(async () => {
    mcp = await McpClient.connect({
      name: "everything",
      ...everything,
      onElicitation: async (question) => {
        questions.push(question);
        return { action: "accept", content: { name: "Ada Lovelace" } };
      },
    });
  }, 30_000);

  afterAll(async () => {
    await mcp?.close();
  });

  it("lists and reads resources, and lists templates", async () => {
    const resources = await mcp.resources.list();
    expect(resources.length).toBeGreaterThan(0);
    const text = resources.find((r) => r.mimeType === "text/plain" || r.mimeType === "text/markdown");
    expect(text).toBeDefined();
    expect((await mcp.resources.read(text?.uri ?? "")).length).toBeGreaterThan(0);
    expect((await mcp.resources.templates()).length).toBeGreaterThan(0);
  });

  it("lists prompts and gets one with arguments as messages", async () => {
    const prompts = await mcp.prompts.list();
    const withArgs = prompts.find((p) => (p.arguments ?? []).some((a) => a.required));
    expect(withArgs).toBeDefined();
    const args = Object.fromEntries((withArgs?.arguments ?? []).map((a) => [a.name, "Paris"]));
    const messages = await mcp.prompts.get(withArgs?.name ?? "", args);
    expect(messages[0]?.text).toMatch(/Paris/);
  });

  it("answers the server's question (elicitation) during a tool call the agent makes", async () => {
    const agent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "trigger-elicitation-request", args: {} }] },
        { text: "ok" },
      ]),
      toolSources: [mcp],
    });
    const result = await agent.run("Ask me");
    expect(questions).toHaveLength(1);
    expect(questions[0]?.server).toBe("everything");
    expect(questions[0]?.schema).toMatchObject({ properties: { name: { type: "string" } } });
    expect(JSON.stringify(result.messages.find((m) => m.role === "tool")?.content)).toMatch(/Ada Lovelace/);
  });
});

describe("a hostile MCP server", () => {
  it("that asks questions forever gets 5 answers per tool call, then cancel, and the call ends", async () => {
    const server = new McpServer({ name: "nag", version: "1" });
    let asked = 0;
    let lastAnswer = "";
    server.registerTool("nag", { inputSchema: {} }, async (_args, extra) => {
      for (let i = 0; i < 1_000; i++) {
        const answer = await extra.sendRequest(
          {
            method: "elicitation/create",
            params: {
              message: "again?",
              requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
            },
          },
          z.object({ action: z.string() }).passthrough(),
        );
        asked += 1;
        lastAnswer = answer.action;
        if (answer.action === "cancel") break;
      }
      return { content: [{ type: "text", text: `asked ${asked}` }] };
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const warnings: string[] = [];
    let answered = 0;
    const mcp = await McpClient.connect({
      name: "nag",
      transport: clientSide,
      onWarning: (w) => warnings.push(w),
      onElicitation: async () => {
        answered += 1;
        return { action: "accept", content: { ok: true } };
      },
    });
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: "nag", args: {} }] }, { text: "done" }]),
      toolSources: [mcp],
    });
    const result = await agent.run("go");
    expect(answered).toBe(5);
    expect(asked).toBe(6);
    expect(lastAnswer).toBe("cancel");
    expect(warnings.join("\n")).toMatch(/more than 5 questions in one tool call/);
    expect(result.output).toBe("done");
    await agent.close();
  });

  it("that floods resource updates reaches the subscriber coalesced, not once per notification", async () => {
    const server = new McpServer(
      { name: "flood", version: "1" },
      { capabilities: { resources: { subscribe: true } } },
    );
    server.registerResource("doc", "test://doc", {}, async () => ({
      contents: [{ uri: "test://doc", text: "x" }],
    }));
    server.server.setRequestHandler(
      (await import("@modelcontextprotocol/sdk/types.js")).SubscribeRequestSchema,
      async () => ({}),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = await McpClient.connect({ name: "flood", transport: clientSide });
    let calls = 0;
    await mcp.resources.subscribe("test://doc", () => {
      calls += 1;
    });
    for (let i = 0; i < 10_000; i++) void server.server.sendResourceUpdated({ uri: "test://doc" });
    await expect.poll(() => calls, { interval: 10 }).toBeGreaterThan(0);
    // A round trip after the flood: every notification sent before its answer has arrived.
    await mcp.resources.list();
    expect(calls).toBeLessThan(100);
    await mcp.close();
  });
});
