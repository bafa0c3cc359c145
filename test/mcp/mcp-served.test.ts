import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Agent } from "glassloop";
import {
  createAgentMcpHandler,
  createAgentServer,
  createMcpHttpHandler,
  createMcpServer,
  type McpServerOptions,
} from "glassloop/mcp";
import { SqliteStore } from "glassloop/store";
import { FunctionModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { serve as serveHandler } from "../serve/harness.js";

async function connect(server: ReturnType<typeof createMcpServer>): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(clientSide);
  return client;
}

const serve = (options: McpServerOptions) => connect(createMcpServer(options));

describe("glassloop's MCP server API (createMcpServer, createAgentServer)", () => {
  it("lists a tool's JSON Schema as written and answers bad arguments with isError before run", async () => {
    let ran = 0;
    const client = await serve({
      tools: [
        {
          name: "greet",
          description: "Greets.",
          inputSchema: {
            $schema: "https://json-schema.org/draft/2020-12/schema",
            type: "object",
            $defs: { who: { type: "string", minLength: 1 } },
            properties: { name: { $ref: "#/$defs/who" } },
            required: ["name"],
            additionalProperties: false,
          },
          run: ({ name }) => {
            ran += 1;
            return `hello ${String(name)}`;
          },
        },
      ],
    });
    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema).toMatchObject({
      $defs: { who: { minLength: 1 } },
      additionalProperties: false,
    });
    const bad = await client.callTool({ name: "greet", arguments: { name: "", extra: 1 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/Invalid arguments for greet/);
    expect(ran).toBe(0);
    expect(await client.callTool({ name: "greet", arguments: { name: "Ada" } })).toMatchObject({
      content: [{ type: "text", text: "hello Ada" }],
    });
    await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  it("sends a tool's logs at or above the level the client set, and drops the rest", async () => {
    const client = await serve({
      tools: [
        {
          name: "noisy",
          description: "Logs.",
          async run(_args, call) {
            await call.log("debug", "detail");
            await call.log("warning", "careful");
            return "done";
          },
        },
      ],
    });
    const seen: unknown[] = [];
    client.setNotificationHandler(
      (await import("@modelcontextprotocol/sdk/types.js")).LoggingMessageNotificationSchema,
      (n) => {
        seen.push(n.params.data);
      },
    );
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "noisy", arguments: {} });
    expect(seen).toEqual(["careful"]);
    await client.close();
  });

  it("sends a subscribed resource's changes until the client unsubscribes, and refuses unknown URIs", async () => {
    let notify: (() => void) | undefined;
    let stopped = 0;
    const client = await serve({
      resources: [
        {
          uri: "notes://today",
          name: "today",
          description: "Today's note.",
          read: () => "buy milk",
          watch: (changed) => {
            notify = changed;
            return () => {
              stopped += 1;
            };
          },
        },
      ],
    });
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updates.push(n.params.uri);
    });
    expect((await client.readResource({ uri: "notes://today" })).contents).toEqual([
      { uri: "notes://today", text: "buy milk" },
    ]);
    await client.subscribeResource({ uri: "notes://today" });
    notify?.();
    await expect.poll(() => updates).toEqual(["notes://today"]);
    await client.unsubscribeResource({ uri: "notes://today" });
    expect(stopped).toBe(1);
    await expect(client.subscribeResource({ uri: "notes://other" })).rejects.toThrow(/Resource not found/);
    await client.close();
  });

  it("completes prompt arguments and template variables", async () => {
    const client = await serve({
      prompts: [
        {
          name: "weather",
          arguments: [
            {
              name: "city",
              required: true,
              complete: (v) => ["Oslo", "Osaka"].filter((c) => c.startsWith(v)),
            },
          ],
          get: ({ city }) => `Weather in ${city}?`,
        },
      ],
      resourceTemplates: [
        {
          uriTemplate: "city://{name}",
          name: "city",
          read: (_uri, { name }) => `about ${name}`,
          complete: { name: (v) => ["Lima", "Lyon"].filter((c) => c.startsWith(v)) },
        },
      ],
    });
    const prompt = await client.complete({
      ref: { type: "ref/prompt", name: "weather" },
      argument: { name: "city", value: "Os" },
    });
    expect(prompt.completion.values).toEqual(["Oslo", "Osaka"]);
    const template = await client.complete({
      ref: { type: "ref/resource", uri: "city://{name}" },
      argument: { name: "name", value: "Ly" },
    });
    expect(template.completion.values).toEqual(["Lyon"]);
    expect((await client.getPrompt({ name: "weather", arguments: { city: "Oslo" } })).messages).toEqual([
      { role: "user", content: { type: "text", text: "Weather in Oslo?" } },
    ]);
    expect((await client.readResource({ uri: "city://Lima" })).contents[0]).toMatchObject({
      text: "about Lima",
    });
    await client.close();
  });

  it("offers an agent's instructions as a prompt and its sessions as resources only when asked", async () => {
    const store = new SqliteStore({ path: ":memory:" });
    const agent = new Agent({
      name: "helper",
      instructions: "Be brief.",
      model: new FunctionModel(() => ({ text: "ok" })),
      store,
    });
    await agent.run("remember the milk", { session: "s-1" });

    const plain = await connect(createAgentServer(agent));
    expect(plain.getServerCapabilities()?.prompts).toBeUndefined();
    expect(plain.getServerCapabilities()?.resources).toBeUndefined();
    await plain.close();

    const client = await connect(createAgentServer(agent, { instructionsPrompt: true, transcripts: true }));
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["helper_instructions"]);
    const got = await client.getPrompt({ name: "helper_instructions", arguments: { task: "sum 2+2" } });
    expect(got.messages[0]?.content).toEqual({ type: "text", text: "Be brief.\n\nTask: sum 2+2" });
    const { resources } = await client.listResources();
    expect(resources).toMatchObject([{ uri: "glassloop://sessions/s-1", mimeType: "application/json" }]);
    const read = await client.readResource({ uri: "glassloop://sessions/s-1" });
    const first = read.contents[0];
    const messages = JSON.parse(first && "text" in first ? first.text : "[]") as { role: string }[];
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const ids = await client.complete({
      ref: { type: "ref/resource", uri: "glassloop://sessions/{id}" },
      argument: { name: "id", value: "s-" },
    });
    expect(ids.completion.values).toEqual(["s-1"]);
    await client.close();
    store.close();
  });

  it("closes a call's stream on request, and a client that reconnects with Last-Event-ID gets the answer", async () => {
    const handler = createMcpHttpHandler(() =>
      createMcpServer({
        tools: [
          {
            name: "slow",
            description: "Closes its stream, then answers.",
            async run(_args, call) {
              call.closeStream();
              await new Promise((resolve) => setTimeout(resolve, 20));
              return "finished";
            },
          },
        ],
      }),
    );
    const post = (body: unknown, session?: string) =>
      handler.fetch(
        new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: {
            host: "127.0.0.1",
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-11-25",
            ...(session && { "mcp-session-id": session }),
          },
          body: JSON.stringify(body),
        }),
      );
    const init = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    const session = init.headers.get("mcp-session-id") ?? "";
    await init.text();
    await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
    const call = await post(
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: {} } },
      session,
    );
    const first = await call.text();
    // A priming event (an id, a retry hint, no data), then the stream ends without the answer.
    expect(first).toMatch(/^id: \S+\nretry: \d+\ndata: \n\n$/);
    const lastId = /^id: (\S+)/.exec(first)?.[1] ?? "";
    await new Promise((resolve) => setTimeout(resolve, 60));
    const resumed = await handler.fetch(
      new Request("http://127.0.0.1/mcp", {
        method: "GET",
        headers: {
          host: "127.0.0.1",
          accept: "text/event-stream",
          "mcp-session-id": session,
          "mcp-protocol-version": "2025-11-25",
          "last-event-id": lastId,
        },
      }),
    );
    const reader = resumed.body?.getReader();
    let text = "";
    while (reader && !text.includes("finished")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader?.cancel();
    expect(text).toContain('"text":"finished"');
    await handler.close();
  });

  it("is mounted at /mcp of glassloop serve's handler, with its own token, and closes with it", async () => {
    const agent = new Agent({ name: "echo", model: new FunctionModel(() => ({ text: "served" })) });
    const mcp = createAgentMcpHandler(agent, { tokens: ["mcp-token-0123456789"] });
    const served = serveHandler({ agents: { echo: () => agent }, mcp });
    // The mount keeps the MCP handler's own checks: a host it was not told of, then the token.
    expect((await served.fetch("/mcp", { method: "POST", body: "{}" })).status).toBe(403);
    expect((await served.fetch("http://localhost/mcp", { method: "POST", body: "{}" })).status).toBe(401);
    const client = new Client({ name: "t", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
        fetch: served.fetch,
        requestInit: { headers: { authorization: "Bearer mcp-token-0123456789" } },
      }),
    );
    expect(await client.callTool({ name: "echo", arguments: { input: "hi" } })).toMatchObject({
      content: [{ type: "text", text: "served" }],
    });
    expect(mcp.sessions()).toBe(1);
    await client.close();
    await served.close();
    expect(mcp.sessions()).toBe(0);
  });
});
