import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { Agent } from "glassloop";
import { McpClient } from "glassloop/mcp";
import { ScriptedModel } from "glassloop/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A port nobody uses right now, on loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

describe("MCP client over streamable HTTP (@modelcontextprotocol/server-everything)", () => {
  let server: ChildProcess;
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/mcp`;
    server = spawn(
      process.execPath,
      ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "streamableHttp"],
      { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] },
    );
    await new Promise<void>((resolve, reject) => {
      let said = "";
      server.stderr?.on("data", (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes("listening")) resolve();
      });
      server.once("exit", (code) => reject(new Error(`server exited (${code}): ${said}`)));
    });
  });

  afterAll(() => {
    server?.kill();
  });

  it("lists and calls the server's tools through an agent run", async () => {
    const mcp = await McpClient.connect({ name: "everything-http", url });
    expect(mcp.pid).toBeNull();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get-sum", args: { a: 20, b: 22 } }] },
      { text: "42" },
    ]);
    const agent = new Agent({ model, toolSources: [mcp] });
    const result = await agent.run("Add 20 and 22");
    const toolResult = result.messages.find((m) => m.role === "tool");
    expect(toolResult?.content).toMatch(/42/);
    expect(result.output).toBe("42");
    await agent.close();
  });

  it("reads resources and prompts and answers an elicitation over streamable HTTP", async () => {
    const mcp = await McpClient.connect({
      name: "everything-http",
      url,
      onElicitation: async () => ({ action: "accept", content: { name: "Grace Hopper" } }),
    });
    const resources = await mcp.resources.list();
    expect(resources.length).toBeGreaterThan(0);
    expect((await mcp.prompts.list()).length).toBeGreaterThan(0);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "trigger-elicitation-request", args: {} }] },
      { text: "done" },
    ]);
    const agent = new Agent({ model, toolSources: [mcp] });
    const result = await agent.run("Ask");
    expect(JSON.stringify(result.messages.find((m) => m.role === "tool")?.content)).toMatch(/Grace Hopper/);
    await agent.close();
  });

  it("fails to connect with a clear error naming the server", async () => {
    const port = await freePort();
    await expect(
      McpClient.connect({ name: "nobody", url: `http://127.0.0.1:${port}/mcp`, connectTimeoutMs: 3_000 }),
    ).rejects.toThrow(/Could not connect to MCP server "nobody"/);
  });
});
