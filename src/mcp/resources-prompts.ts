import { z } from "zod";
import { ToolError } from "../core/errors.js";
import { type AgentTool, tool } from "../tools/tool.js";
import { renderContent } from "./render-content.js";
import { type Client, schemas } from "./sdk.js";

/** A resource a server offers (`resources/list`). */
export interface McpResource {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** A prompt a server offers (`prompts/list`). */
export interface McpPrompt {
  name: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
}

/** One message of a prompt, as text (images and other blobs as a short placeholder). */
export interface McpPromptMessage {
  role: "user" | "assistant";
  text: string;
}

const MAX_PAGES = 64;
const MAX_ITEMS = 4096;

/** Reads every page of a listing, bounded in pages and items, stopping at a repeated cursor. */
async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; pages < MAX_PAGES && items.length < MAX_ITEMS; pages++) {
    const next = await page(cursor);
    items.push(...next.items);
    cursor = next.nextCursor;
    if (!cursor || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return items.slice(0, MAX_ITEMS);
}

/** A server's resources: list, read, templates, and updates of the ones subscribed to. */
export class McpResources {
  readonly #listeners = new Map<string, (uri: string) => void>();
  readonly #busy = new Set<string>();
  readonly #again = new Set<string>();

  constructor(
    private readonly client: Client,
    private readonly timeoutMs: number,
  ) {
    client.setNotificationHandler(schemas.ResourceUpdatedNotificationSchema, (notification) => {
      this.#updated(notification.params.uri);
    });
  }

  /** Every resource the server lists (at most 4,096, 64 pages). */
  list(): Promise<McpResource[]> {
    return allPages(async (cursor) => {
      const page = await this.client.listResources(cursor ? { cursor } : {}, { timeout: this.timeoutMs });
      return { items: page.resources, nextCursor: page.nextCursor };
    });
  }

  /** The server's URI templates (`resources/templates/list`). */
  templates(): Promise<{ uriTemplate: string; name: string; description?: string }[]> {
    return allPages(async (cursor) => {
      const page = await this.client.listResourceTemplates(cursor ? { cursor } : {}, {
        timeout: this.timeoutMs,
      });
      return { items: page.resourceTemplates, nextCursor: page.nextCursor };
    });
  }

  /** A resource's contents as text (blobs as a placeholder), ready to put in a prompt. */
  async read(uri: string): Promise<string> {
    const { contents } = await this.client.readResource({ uri }, { timeout: this.timeoutMs });
    return renderContent({
      content: contents.map((c) =>
        "text" in c ? { type: "text", text: c.text } : { type: "blob", mimeType: c.mimeType },
      ),
    });
  }

  /**
   * Calls `onUpdate` when the server says the resource changed. A flood of updates is coalesced:
   * one call at a time per resource, and one more if updates came in meanwhile.
   */
  async subscribe(
    uri: string,
    onUpdate: (uri: string) => void | Promise<void>,
  ): Promise<() => Promise<void>> {
    await this.client.subscribeResource({ uri }, { timeout: this.timeoutMs });
    this.#listeners.set(uri, (u) => void onUpdate(u));
    return async () => {
      this.#listeners.delete(uri);
      await this.client.unsubscribeResource({ uri }, { timeout: this.timeoutMs }).catch(() => {});
    };
  }

  #updated(uri: string): void {
    const listener = this.#listeners.get(uri);
    if (!listener) return;
    if (this.#busy.has(uri)) {
      this.#again.add(uri);
      return;
    }
    this.#busy.add(uri);
    queueMicrotask(() => {
      try {
        listener(uri);
      } finally {
        setTimeout(() => {
          this.#busy.delete(uri);
          if (this.#again.delete(uri)) this.#updated(uri);
        }, 0);
      }
    });
  }

  /**
   * Two tools a user may give the model: list the server's resources and read one by URI. Off
   * unless asked for, since what a server keeps is then the model's to read.
   */
  tools(prefix: string): AgentTool<unknown>[] {
    return [
      tool({
        name: `${prefix}_list_resources`.slice(0, 64),
        description: `Lists the resources (documents, files, records) the MCP server offers.`,
        input: z.object({}),
        run: async () => JSON.stringify(await this.list()),
      }),
      tool({
        name: `${prefix}_read_resource`.slice(0, 64),
        description: `Reads one resource of the MCP server by its URI.`,
        input: z.object({ uri: z.string().describe("The resource's URI, as listed.") }),
        run: async ({ uri }) => {
          try {
            return await this.read(uri);
          } catch (error) {
            throw new ToolError(
              `Could not read ${uri}: ${error instanceof Error ? error.message : String(error)}`,
            );
          }
        },
      }),
    ] as AgentTool<unknown>[];
  }
}

/** A server's prompts: list them, and get one with arguments as messages. */
export class McpPrompts {
  constructor(
    private readonly client: Client,
    private readonly timeoutMs: number,
  ) {}

  /** Every prompt the server lists (at most 4,096, 64 pages). */
  list(): Promise<McpPrompt[]> {
    return allPages(async (cursor) => {
      const page = await this.client.listPrompts(cursor ? { cursor } : {}, { timeout: this.timeoutMs });
      return { items: page.prompts, nextCursor: page.nextCursor };
    });
  }

  /** The prompt's messages for these arguments, as text. */
  async get(name: string, args: Record<string, string> = {}): Promise<McpPromptMessage[]> {
    const { messages } = await this.client.getPrompt({ name, arguments: args }, { timeout: this.timeoutMs });
    return messages.map((m) => ({ role: m.role, text: renderContent({ content: [m.content] }) }));
  }
}
