import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ConfigError, GlassloopError, ToolError } from "../errors.js";
import { fitsAsName } from "../memory/files.js";
import type { JsonSchema } from "../models/model.js";
import type { AgentTool } from "../tools/tool.js";
import type { ToolSource } from "../tools/tool-source.js";
import { jsonSchemaTool } from "./json-schema-tool.js";
import { renderContent } from "./render-content.js";
import {
  Client,
  StdioClientTransport,
  StreamableHTTPClientTransport,
  ToolListChangedNotificationSchema,
} from "./sdk.js";

/** How to reach an MCP server: spawn it (stdio) or call it (streamable HTTP). */
export type McpServerConfig = {
  /** Shown in tool errors and events. */
  name: string;
  /** Prefix tool names with `<prefix>_` to keep servers apart (default: no prefix). */
  prefix?: string;
  /** Longest wait for one tool call (default 60,000 ms). */
  callTimeoutMs?: number;
  /** Longest wait for the connection and the first tool list (default 20,000 ms). */
  connectTimeoutMs?: number;
  /** Longest wait for one re-read of the tool list after a change notification (default 20,000 ms). */
  listTimeoutMs?: number;
  /** Most tools the server may offer (default 512); more is an error, not a longer tool list. */
  maxTools?: number;
  /** Most pages one tool listing may take (default 64). */
  maxListPages?: number;
  /**
   * Told about what the server got wrong and glassloop ignored (a line on stdout that is not
   * JSON-RPC, a response to no request, a tool list it refused). Default: `process.emitWarning`,
   * at most 10 per server.
   */
  onWarning?: (message: string) => void;
} /** An already made transport (in-process servers, tests). */ & (
  | { transport: Transport }
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
  | { url: string; headers?: Record<string, string> }
);

/** Connecting to an MCP server failed. */
export class McpConnectError extends GlassloopError {
  constructor(server: string, cause: unknown) {
    super("mcp_connect", `Could not connect to MCP server "${server}": ${messageOf(cause)}`, { cause });
  }
}

/** A server's tool list that glassloop refuses: too many tools, too many pages, a cursor that repeats. */
export class McpToolListError extends GlassloopError {
  constructor(server: string, why: string) {
    super("mcp_tool_list", `MCP server "${server}" sent a tool list glassloop refuses: ${why}`);
  }
}

const DEFAULT_MAX_TOOLS = 512;
const DEFAULT_MAX_PAGES = 64;
const MAX_WARNINGS = 10;
const CLOSED_BY_US = "the client closed the connection";

/**
 * A connection to one MCP server whose tools become glassloop tools. Pass it to an agent as a
 * tool source: the list follows the server's change notifications, a crashed or hung server
 * turns into tool errors the model reads (the run goes on), and `close()` stops the server.
 */
export class McpClient implements ToolSource {
  readonly name: string;
  #tools: AgentTool<unknown>[] = [];
  #listeners = new Set<() => void>();
  #exited: string | undefined;
  #warnings = 0;
  /** A re-read in flight, and whether another change came in meanwhile. */
  #refreshing: Promise<void> | undefined;
  #again = false;

  private constructor(
    private readonly config: McpServerConfig,
    private readonly client: Client,
    private readonly transport: Transport,
  ) {
    this.name = config.name;
  }

  /** Connects, lists the server's tools, and starts following changes. */
  static async connect(config: McpServerConfig): Promise<McpClient> {
    const client = new Client({ name: "glassloop", version: "0.1.0" });
    const transport = "transport" in config ? config.transport : transportFor(config);
    const mcp = new McpClient(config, client, transport);
    const timeout = AbortSignal.timeout(config.connectTimeoutMs ?? 20_000);
    try {
      await client.connect(transport, { signal: timeout });
      client.onclose = () => {
        mcp.#exited ??= "the server closed the connection";
      };
      // A stray stdout line or a response to no request is the server's noise, not its death:
      // the SDK reports it and carries on, and so do we (only onclose means it is gone).
      client.onerror = (error) => {
        mcp.#warn(`ignored: ${messageOf(error).slice(0, 200)}`);
      };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        mcp.#changed();
      });
      await mcp.refresh({ signal: timeout });
    } catch (error) {
      await client.close().catch(() => {});
      throw new McpConnectError(config.name, error);
    }
    return mcp;
  }

  /** The server's process id for a stdio server (null for HTTP or once it exited). */
  get pid(): number | null {
    return this.transport instanceof StdioClientTransport ? this.transport.pid : null;
  }

  tools(): AgentTool<unknown>[] {
    return this.#tools;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Re-reads the tool list (done automatically on `notifications/tools/list_changed`). Bounded:
   * at most `maxListPages` pages, `maxTools` tools and `listTimeoutMs`, and a cursor seen before
   * ends it; each is an McpToolListError and the previous list stays.
   */
  async refresh(options: { signal?: AbortSignal } = {}): Promise<void> {
    const { name } = this.config;
    const maxTools = this.config.maxTools ?? DEFAULT_MAX_TOOLS;
    const maxPages = this.config.maxListPages ?? DEFAULT_MAX_PAGES;
    const timeout = AbortSignal.timeout(this.config.listTimeoutMs ?? 20_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const listed: { name: string; description?: string; inputSchema: unknown }[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      const page = await this.client.listTools(cursor ? { cursor } : {}, { signal });
      listed.push(...page.tools);
      if (listed.length > maxTools)
        throw new McpToolListError(name, `more than ${maxTools} tools (the maxTools option)`);
      cursor = page.nextCursor;
      if (!cursor) break;
      if (seen.has(cursor))
        throw new McpToolListError(name, `the page cursor ${JSON.stringify(cursor.slice(0, 40))} repeats`);
      seen.add(cursor);
      if (pages >= maxPages)
        throw new McpToolListError(name, `more than ${maxPages} pages (the maxListPages option)`);
    }
    this.#tools = listed.map((t) => this.#wrap(t));
    for (const listener of this.#listeners) listener();
  }

  /** A change notification: one re-read at a time, and one more if changes came in meanwhile. */
  #changed(): void {
    if (this.#refreshing) {
      this.#again = true;
      return;
    }
    this.#refreshing = this.refresh()
      .catch((error: unknown) => this.#warn(`kept the previous tool list: ${messageOf(error)}`))
      .finally(() => {
        this.#refreshing = undefined;
        if (this.#again && !this.#exited) {
          this.#again = false;
          this.#changed();
        }
      });
  }

  #warn(message: string): void {
    // After close() the transport reports its own shutdown (an aborted stream): not news.
    if (this.#exited === CLOSED_BY_US) return;
    const full = `MCP server "${this.config.name}": ${message}`;
    if (this.config.onWarning) {
      this.config.onWarning(full);
      return;
    }
    // A server can make noise forever; the person needs to hear it, not ten thousand times.
    if (++this.#warnings > MAX_WARNINGS) return;
    const more = this.#warnings === MAX_WARNINGS ? " (further warnings from this server are not shown)" : "";
    process.emitWarning(`glassloop: ${full}${more}`);
  }

  async close(): Promise<void> {
    this.#exited ??= CLOSED_BY_US;
    await this.client.close();
  }

  #wrap(remote: { name: string; description?: string; inputSchema: unknown }): AgentTool<unknown> {
    const server = this.config.name;
    const timeoutMs = this.config.callTimeoutMs ?? 60_000;
    return jsonSchemaTool({
      name: localName(remote.name, this.config.prefix),
      description: remote.description ?? `${remote.name} (from MCP server ${server})`,
      parameters: (remote.inputSchema ?? { type: "object" }) as JsonSchema,
      run: async (args, { signal }) => {
        if (this.#exited) throw new ToolError(`MCP server "${server}" is not available (${this.#exited}).`);
        let result: Awaited<ReturnType<Client["callTool"]>>;
        try {
          result = await this.client.callTool({ name: remote.name, arguments: args }, undefined, {
            signal,
            timeout: timeoutMs,
          });
        } catch (error) {
          if (signal.aborted) throw error;
          const why = this.#exited ? `it stopped: ${this.#exited}` : messageOf(error);
          throw new ToolError(`MCP server "${server}" failed on ${remote.name}: ${why}`);
        }
        const text = renderContent(result);
        if (result.isError) throw new ToolError(text || `${remote.name} reported an error`);
        // Image blocks pass through as images and embedded PDF resources as files (the provider
        // shows both to the model); the rest is rendered as text.
        const images = imageBlocks(result.content);
        const files = pdfResources(result.content);
        if (images.length === 0 && files.size === 0) return text;
        const rest = (result.content as unknown[]).filter(
          (b) => !images.includes(b as (typeof images)[number]) && !files.has(b),
        );
        return [
          { type: "text", text: renderContent({ ...result, content: rest }) },
          ...images,
          ...files.values(),
        ];
      },
    });
  }
}

/** A file content block made from an MCP embedded resource. */
type FileBlock = { type: "file"; mediaType: string; data: string; filename?: string };

/**
 * MCP embedded `resource` blocks holding a PDF's bytes (`blob`, base64), keyed by their block, as
 * glassloop file content named after the last segment of the resource's URI.
 */
function pdfResources(content: unknown): Map<unknown, FileBlock> {
  const files = new Map<unknown, FileBlock>();
  if (!Array.isArray(content)) return files;
  for (const b of content) {
    if (b === null || typeof b !== "object" || b.type !== "resource") continue;
    const resource = (b as { resource?: { uri?: unknown; mimeType?: unknown; blob?: unknown } }).resource;
    if (resource?.mimeType !== "application/pdf" || typeof resource.blob !== "string") continue;
    const file: FileBlock = { type: "file", mediaType: "application/pdf", data: resource.blob };
    const name = typeof resource.uri === "string" ? lastSegment(resource.uri) : undefined;
    if (name) file.filename = name;
    files.set(b, file);
  }
  return files;
}

function lastSegment(uri: string): string | undefined {
  const path = URL.canParse(uri) ? new URL(uri).pathname : uri;
  let name: string;
  try {
    name = decodeURIComponent(path.split("/").at(-1) ?? "");
  } catch {
    return undefined;
  }
  // A hostile server's name must not cost the document: one that is not a fit name is left out.
  return fitsAsName(name) ? name : undefined;
}

/** MCP `image` content blocks of a tool result, as glassloop image content. */
function imageBlocks(content: unknown): { type: "image"; mimeType: string; data: string }[] {
  if (!Array.isArray(content)) return [];
  return content.filter(
    (b): b is { type: "image"; mimeType: string; data: string } =>
      b !== null &&
      typeof b === "object" &&
      b.type === "image" &&
      typeof b.data === "string" &&
      typeof b.mimeType === "string",
  );
}

function transportFor(config: Exclude<McpServerConfig, { transport: Transport }>): Transport {
  if ("command" in config) {
    return new StdioClientTransport({
      command: config.command,
      ...(config.args && { args: config.args }),
      ...(config.env && { env: config.env }),
      ...(config.cwd && { cwd: config.cwd }),
      stderr: "ignore",
    });
  }
  if ("url" in config) {
    return new StreamableHTTPClientTransport(new URL(config.url), {
      ...(config.headers && { requestInit: { headers: config.headers } }),
    });
  }
  throw new ConfigError("An MCP server needs a `command` (stdio) or a `url` (streamable HTTP)");
}

/** MCP tool names allow more than providers do; map to ^[a-zA-Z0-9_-]{1,64}$. */
function localName(remote: string, prefix: string | undefined): string {
  const full = prefix ? `${prefix}_${remote}` : remote;
  return full.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
