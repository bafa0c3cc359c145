import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { GlassloopError, ToolError } from "../core/errors.js";
import { heldTimeout } from "../core/held-timeout.js";
import { QuestionAsked } from "../core/questions.js";
import { InputTooLargeError } from "../core/read-caps.js";
import type { JsonSchema } from "../models/model.js";
import type { AgentTool } from "../tools/tool.js";
import type { ToolSource } from "../tools/tool-source.js";
import { CUT_OFF_CODE } from "./capped-fetch.js";
import { type CallInFlight, capabilitiesFor, ElicitationBudget, installFeatures } from "./client-features.js";
import { jsonSchemaTool } from "./json-schema-tool.js";
import { renderContent } from "./render-content.js";
import { McpPrompts, McpResources } from "./resources-prompts.js";
import { imageBlocks, pdfResources } from "./result-blocks.js";
import { Sampler } from "./sampling.js";
import { Client, StdioClientTransport, schemas, ToolListChangedNotificationSchema } from "./sdk.js";
import { type McpServerConfig, transportFor } from "./server-config.js";

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
  readonly #questions: ElicitationBudget;
  /**
   * Tool calls in flight, oldest first: a sampling request is charged to the oldest (the protocol
   * does not say which call a server's request belongs to; all of them are bounded by a run).
   */
  readonly #calls: CallInFlight[] = [];
  /** The server's resources: list, read, templates, subscribe (see also `resourceTools`). */
  readonly resources: McpResources;
  /** The server's prompts: list, and get with arguments. */
  readonly prompts: McpPrompts;

  private constructor(
    private readonly config: McpServerConfig,
    private readonly client: Client,
    private readonly transport: Transport,
  ) {
    this.name = config.name;
    this.#questions = new ElicitationBudget(config.maxElicitations ?? 5);
    const timeout = config.listTimeoutMs ?? 20_000;
    this.resources = new McpResources(client, timeout);
    this.prompts = new McpPrompts(client, timeout);
  }

  /** Connects, lists the server's tools, and starts following changes. */
  static async connect(config: McpServerConfig): Promise<McpClient> {
    const client = new Client(
      { name: "glassloop", version: "0.1.0" },
      { capabilities: capabilitiesFor(config) },
    );
    const transport = "transport" in config ? config.transport : transportFor(config);
    const mcp = new McpClient(config, client, transport);
    installFeatures(
      client,
      config.name,
      config,
      mcp.#questions,
      (message) => mcp.#warn(message),
      () => mcp.#calls[0],
    );
    if (config.sampling) {
      const sampler = new Sampler(
        config.name,
        config.sampling,
        () => mcp.#calls[0],
        (message) => mcp.#warn(message),
      );
      client.setRequestHandler(schemas.CreateMessageRequestSchema, (request, extra) =>
        sampler.answer(request.params, extra.signal),
      );
    }
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

  /** Whether a server's question pauses the run (`onElicitation: "pause"`): such a run is stored. */
  get mayAsk(): boolean {
    return this.config.onElicitation === "pause";
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
    // Held: an `AbortSignal.timeout` inside `any` can be collected before it fires (held-timeout.ts).
    const timeout = heldTimeout(this.config.listTimeoutMs ?? 20_000, `listing ${name}'s tools`);
    try {
      await this.#list(options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal);
    } finally {
      timeout.clear();
    }
  }

  async #list(signal: AbortSignal): Promise<void> {
    const { name } = this.config;
    const maxTools = this.config.maxTools ?? DEFAULT_MAX_TOOLS;
    const maxPages = this.config.maxListPages ?? DEFAULT_MAX_PAGES;
    const listed: { name: string; description?: string; inputSchema: unknown }[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    // A server without tools (resources or prompts only) is asked for none.
    const offersTools = this.client.getServerCapabilities()?.tools !== undefined;
    for (let pages = 1; offersTools; pages++) {
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
    if (this.config.resourceTools && this.client.getServerCapabilities()?.resources)
      this.#tools.push(...this.resources.tools(this.config.prefix ?? localName(name, undefined)));
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
      run: async (args, options) => {
        const { signal } = options;
        if (this.#exited) throw new ToolError(`MCP server "${server}" is not available (${this.#exited}).`);
        let result: Awaited<ReturnType<Client["callTool"]>>;
        this.#questions.reset();
        const inFlight: CallInFlight = { run: options, samples: 0, pause: new AbortController() };
        this.#calls.push(inFlight);
        try {
          result = await this.client.callTool({ name: remote.name, arguments: args }, undefined, {
            signal:
              this.config.onElicitation === "pause"
                ? AbortSignal.any([signal, inFlight.pause.signal])
                : signal,
            timeout: timeoutMs,
          });
        } catch (error) {
          if (signal.aborted) throw error;
          // The server asked the person something the record does not answer: the run pauses.
          if (inFlight.asked) throw new QuestionAsked(inFlight.asked);
          const why = this.#exited ? `it stopped: ${this.#exited}` : messageOf(error);
          throw new ToolError(`MCP server "${server}" failed on ${remote.name}: ${why}`, {
            cause: cutOff(error, server) ?? error,
          });
        } finally {
          this.#calls.splice(this.#calls.indexOf(inFlight), 1);
        }
        // An answer the server made after hearing "cancel" is not the one the person would give.
        if (inFlight.asked) throw new QuestionAsked(inFlight.asked);
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

/** MCP tool names allow more than providers do; map to ^[a-zA-Z0-9_-]{1,64}$. */
function localName(remote: string, prefix: string | undefined): string {
  const full = prefix ? `${prefix}_${remote}` : remote;
  return full.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
}

/** The typed error of an answer cut off at the message cap (capped-fetch.ts), however it arrived. */
function cutOff(error: unknown, server: string): InputTooLargeError | undefined {
  if (error instanceof InputTooLargeError) return error;
  const data = (error as { data?: { code?: unknown; limitBytes?: unknown } } | null)?.data;
  if (data?.code !== CUT_OFF_CODE || typeof data.limitBytes !== "number") return undefined;
  return new InputTooLargeError("mcpMessage", data.limitBytes, `MCP server ${JSON.stringify(server)}`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
