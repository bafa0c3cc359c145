import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type AgentEvent, type Message, type ToolMessage } from "glassloop";
import { McpClient } from "glassloop/mcp";
import { ScriptedModel } from "glassloop/testing";
import { afterEach, describe, expect, it } from "vitest";

const everything = {
  command: process.execPath,
  args: ["node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
};
const filesystem = (root: string) => ({
  command: process.execPath,
  args: ["node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", root],
});

const open: McpClient[] = [];
async function connect(config: Parameters<typeof McpClient.connect>[0]): Promise<McpClient> {
  const client = await McpClient.connect(config);
  open.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

const results = (messages: Message[]) => messages.filter((m): m is ToolMessage => m.role === "tool");

describe("MCP client against @modelcontextprotocol/server-everything (stdio)", () => {
  it("lists the server's tools as glassloop tools with their JSON Schema", async () => {
    const mcp = await connect({ name: "everything", ...everything });
    const sum = mcp.tools().find((t) => t.name === "get-sum");
    expect(sum?.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
    });
    expect(mcp.tools().map((t) => t.name)).toContain("echo");
  });

  it("calls them through an agent run; invalid arguments never reach the server", async () => {
    const mcp = await connect({ name: "everything", ...everything });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "get-sum", args: { a: 2, b: 3 } },
          { name: "echo", args: { message: "hello" } },
          { name: "get-sum", args: { a: "two", b: 3 } },
        ],
      },
      { text: "2 + 3 = 5" },
    ]);
    const agent = new Agent({ model, toolSources: [mcp] });
    const events: AgentEvent[] = [];
    const result = await agent.run("Add 2 and 3, echo hello", { onEvent: (e) => events.push(e) });
    expect(result.output).toBe("2 + 3 = 5");
    const [sum, echo, bad] = results(result.messages);
    expect(sum?.content).toMatch(/5/);
    expect(sum?.isError).toBeUndefined();
    expect(echo?.content).toMatch(/hello/);
    expect(bad).toMatchObject({ isError: true });
    expect(bad?.content).toMatch(/Invalid arguments for get-sum: a: must be number/);
    expect(
      events.filter((e) => e.type === "tool_result").map((e) => e.type === "tool_result" && e.status),
    ).toEqual(["ok", "ok", "invalid"]);
    // The model was told about the server's tools in its request.
    expect(model.requests[0]?.tools.map((t) => t.name)).toContain("get-sum");
  });

  it("passes an image a tool returns through as an image of the tool message, not base64 text", async () => {
    const mcp = await connect({ name: "everything", ...everything });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get-tiny-image", args: {} }] },
      { text: "a tiny image" },
    ]);
    const result = await new Agent({ model, toolSources: [mcp] }).run("Show me the tiny image");
    const [image] = results(result.messages);
    expect(image?.isError).toBeUndefined();
    expect(image?.images).toEqual([
      { type: "image", mediaType: "image/png", data: expect.stringMatching(/^iVBOR/) },
    ]);
    // The text the model reads names the image; the bytes travel only as the image.
    expect(image?.content).toMatch(/\[image image\/png, \d+ bytes\]/);
    expect(image?.content).not.toContain(image?.images?.[0]?.data);
  });

  it("turns a server killed mid-run into a clear tool error and the run goes on", async () => {
    const mcp = await connect({ name: "everything", ...everything });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "trigger-long-running-operation", args: { duration: 5, steps: 5 } }] },
      { toolCalls: [{ name: "echo", args: { message: "still there?" } }] },
      { text: "The server crashed; I could not finish." },
    ]);
    const agent = new Agent({ model, toolSources: [mcp] });
    const result = await agent.run("Run the long operation", {
      onEvent: (e) => {
        if (e.type === "tool_call" && e.toolName === "trigger-long-running-operation") {
          setTimeout(() => process.kill(mcp.pid ?? 0, "SIGKILL"), 200);
        }
      },
    });
    expect(result.output).toBe("The server crashed; I could not finish.");
    const [crashed, after] = results(result.messages);
    expect(crashed).toMatchObject({ isError: true });
    expect(crashed?.content).toMatch(/MCP server "everything"/);
    expect(after?.content).toMatch(/MCP server "everything" is not available/);
  });

  it("gives a hung call a timeout error without stopping the run", async () => {
    const mcp = await connect({ name: "everything", ...everything, callTimeoutMs: 300 });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "trigger-long-running-operation", args: { duration: 5, steps: 1 } }] },
      { text: "It timed out." },
    ]);
    const started = Date.now();
    const result = await new Agent({ model, toolSources: [mcp] }).run("go");
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(results(result.messages)[0]?.content).toMatch(
      /failed on trigger-long-running-operation: .*timed out/i,
    );
  });

  it("closes the server with the agent", async () => {
    const mcp = await connect({ name: "everything", ...everything });
    const pid = mcp.pid;
    const agent = new Agent({ model: new ScriptedModel([]), toolSources: [mcp] });
    await agent.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(() => process.kill(pid ?? 0, 0)).toThrow();
  });
});

describe("MCP client against @modelcontextprotocol/server-filesystem (stdio)", () => {
  it("reads inside its root and reports a refusal outside it as a tool error", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "glassloop-mcp-")));
    writeFileSync(join(root, "note.txt"), "the secret word is glass");
    const mcp = await connect({ name: "fs", prefix: "fs", ...filesystem(root) });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "fs_read_text_file", args: { path: join(root, "note.txt") } },
          { name: "fs_read_text_file", args: { path: "/etc/passwd" } },
        ],
      },
      { text: "The word is glass." },
    ]);
    const result = await new Agent({ model, toolSources: [mcp] }).run("Read note.txt");
    const [inside, outside] = results(result.messages);
    expect(inside?.content).toBe("the secret word is glass");
    expect(outside).toMatchObject({ isError: true });
    expect(outside?.content).toMatch(/denied|outside|not allowed/i);
  });
});
