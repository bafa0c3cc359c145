/**
 * MCP embedded resources holding a PDF pass through as file parts of the tool message (the
 * provider shows the document to the model); other resources stay text, and a hostile name is
 * dropped rather than costing the document.
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Agent, type Message, type ToolMessage } from "glassloop";
import { McpClient } from "glassloop/mcp";
import { ScriptedModel } from "glassloop/testing";
import { afterEach, describe, expect, it } from "vitest";

const PDF = Buffer.from("%PDF-1.7\n% an invoice\ntrailer<<>>\n%%EOF\n").toString("base64");
const PDF_BYTES = Buffer.from(PDF, "base64").length;

const open: McpClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

/** An in-process MCP server whose one tool returns `content`. */
async function serverReturning(content: unknown[]): Promise<McpClient> {
  const server = new McpServer({ name: "docs", version: "1.0.0" });
  server.registerTool("get_invoice", { description: "Returns the invoice." }, async () => ({
    content: content as never,
  }));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = await McpClient.connect({ name: "docs", transport: clientSide });
  open.push(client);
  return client;
}

const results = (messages: Message[]) => messages.filter((m): m is ToolMessage => m.role === "tool");

async function callIt(mcp: McpClient): Promise<ToolMessage | undefined> {
  const model = new ScriptedModel([{ toolCalls: [{ name: "get_invoice", args: {} }] }, { text: "read it" }]);
  const result = await new Agent({ model, toolSources: [mcp] }).run("Read the invoice");
  return results(result.messages)[0];
}

describe("MCP embedded PDF resources", () => {
  it("become a file part named after the resource, with the other blocks as the text", async () => {
    const mcp = await serverReturning([
      { type: "text", text: "Invoice 7 of March:" },
      {
        type: "resource",
        resource: { uri: "file:///srv/invoices/march%207.pdf", mimeType: "application/pdf", blob: PDF },
      },
      {
        type: "resource",
        resource: { uri: "file:///srv/invoices/notes.txt", mimeType: "text/plain", text: "paid" },
      },
    ]);
    const message = await callIt(mcp);
    expect(message?.isError).toBeUndefined();
    expect(message?.files).toEqual([
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "march 7.pdf" },
    ]);
    // The bytes travel only as the file; the text names it.
    expect(message?.content).toBe(
      `Invoice 7 of March:\npaid\n[file application/pdf "march 7.pdf", ${PDF_BYTES} bytes]`,
    );
  });

  it("a resource of another binary type stays a placeholder in the text, not a file", async () => {
    const mcp = await serverReturning([
      { type: "resource", resource: { uri: "file:///a.zip", mimeType: "application/zip", blob: PDF } },
    ]);
    const message = await callIt(mcp);
    expect(message?.files).toBeUndefined();
    expect(message?.content).toBe("[resource file:///a.zip]");
  });

  it("a server's name with control characters is left out; the document still arrives", async () => {
    const mcp = await serverReturning([
      {
        type: "resource",
        resource: { uri: "file:///x/%1B%5B2Jevil.pdf", mimeType: "application/pdf", blob: PDF },
      },
    ]);
    const message = await callIt(mcp);
    expect(message?.files).toEqual([{ type: "file", mediaType: "application/pdf", data: PDF }]);
  });

  it("a PDF resource whose bytes are not a PDF is an error result the model can read", async () => {
    const mcp = await serverReturning([
      {
        type: "resource",
        resource: {
          uri: "file:///fake.pdf",
          mimeType: "application/pdf",
          blob: Buffer.from("MZ...").toString("base64"),
        },
      },
    ]);
    const message = await callIt(mcp);
    expect(message).toMatchObject({ isError: true, content: expect.stringMatching(/not a PDF/) });
  });
});
