import type { PromptMessage, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import { completable, type McpServer, ResourceTemplate, schemas } from "./sdk.js";
import type { McpServedPrompt, McpServedResource, McpServedResourceTemplate } from "./served-types.js";

/** Most resources one session may watch at once: a client cannot make the server hold unbounded watches. */
const MAX_SUBSCRIPTIONS = 256;

/**
 * Offers fixed resources and templates (`resources/list`, `read`, `templates/list`, completion of
 * template variables) and subscriptions to the fixed ones (`resources/subscribe`, `unsubscribe`):
 * a subscribed resource's `watch` is started and each change is sent as
 * `notifications/resources/updated`; unsubscribing or the session's end stops it.
 */
export function installResources(
  server: McpServer,
  resources: readonly McpServedResource[],
  templates: readonly McpServedResourceTemplate[],
): void {
  const byUri = new Map<string, McpServedResource>();
  for (const resource of resources) {
    if (byUri.has(resource.uri)) throw new ConfigError(`Two MCP resources have the URI ${resource.uri}`);
    byUri.set(resource.uri, resource);
    server.registerResource(resource.name, resource.uri, metadata(resource), async (uri) =>
      contents(uri.href, resource.mimeType, await resource.read()),
    );
  }
  for (const template of templates) {
    const complete = Object.fromEntries(
      Object.entries(template.complete ?? {}).map(([name, fn]) => [name, async (value: string) => fn(value)]),
    );
    const list = template.list;
    server.registerResource(
      template.name,
      new ResourceTemplate(template.uriTemplate, {
        list: list && (async () => ({ resources: await list() })),
        complete,
      }),
      metadata(template),
      async (uri, variables) => {
        const flat = Object.fromEntries(
          Object.entries(variables).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]),
        );
        return contents(uri.href, template.mimeType, await template.read(uri.href, flat));
      },
    );
  }
  if (resources.length === 0 && templates.length === 0) return;

  const low = server.server;
  low.registerCapabilities({ resources: { subscribe: true } });
  const watching = new Map<string, () => void>();
  low.setRequestHandler(schemas.SubscribeRequestSchema, ({ params: { uri } }) => {
    const resource = byUri.get(uri);
    if (!resource) throw new schemas.McpError(-32002, `Resource not found: ${uri.slice(0, 200)}`);
    if (watching.has(uri)) return {};
    if (watching.size >= MAX_SUBSCRIPTIONS)
      throw new schemas.McpError(
        schemas.ErrorCode.InvalidRequest,
        `At most ${MAX_SUBSCRIPTIONS} subscriptions per session`,
      );
    const stop =
      resource.watch?.(() => {
        // A client that went away must not fail the resource's owner: updates are advisory.
        low.sendResourceUpdated({ uri }).catch(() => {});
      }) ?? (() => {});
    watching.set(uri, stop);
    return {};
  });
  low.setRequestHandler(schemas.UnsubscribeRequestSchema, ({ params: { uri } }) => {
    watching.get(uri)?.();
    watching.delete(uri);
    return {};
  });
  const previous = low.onclose;
  low.onclose = () => {
    for (const stop of watching.values()) stop();
    watching.clear();
    previous?.();
  };
}

/** Offers `prompts` (`prompts/list`, `prompts/get`, completion of their arguments). */
export function installPrompts(server: McpServer, prompts: readonly McpServedPrompt[]): void {
  for (const prompt of prompts) {
    const shape: Record<string, z.ZodType<string | undefined>> = {};
    for (const arg of prompt.arguments ?? []) {
      let schema: z.ZodType<string | undefined> = arg.description
        ? z.string().describe(arg.description)
        : z.string();
      const complete = arg.complete;
      if (complete)
        schema = completable(schema as z.ZodString, (value, context) =>
          complete(value ?? "", context?.arguments ?? {}),
        ) as unknown as z.ZodString;
      shape[arg.name] = arg.required ? schema : schema.optional();
    }
    server.registerPrompt(
      prompt.name,
      {
        ...(prompt.title && { title: prompt.title }),
        ...(prompt.description && { description: prompt.description }),
        argsSchema: shape as Record<string, z.ZodString>,
      },
      async (args: Record<string, string | undefined>) => {
        const given = Object.fromEntries(
          Object.entries(args).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
        );
        const messages = await prompt.get(given);
        return {
          messages:
            typeof messages === "string"
              ? [{ role: "user" as const, content: { type: "text" as const, text: messages } }]
              : (messages as PromptMessage[]),
        };
      },
    );
  }
}

function metadata(item: { title?: string; description?: string; mimeType?: string }) {
  return {
    ...(item.title && { title: item.title }),
    ...(item.description && { description: item.description }),
    ...(item.mimeType && { mimeType: item.mimeType }),
  };
}

function contents(uri: string, mimeType: string | undefined, body: string | Uint8Array): ReadResourceResult {
  const mime = mimeType ? { mimeType } : {};
  return {
    contents: [
      typeof body === "string"
        ? { uri, ...mime, text: body }
        : {
            uri,
            ...mime,
            blob: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("base64"),
          },
    ],
  };
}
