import { z } from "zod";
import type { McpClient } from "../mcp/client.js";
import type { McpElicitation, McpElicitationAnswer, McpElicitationHandler } from "../mcp/elicitation.js";
import type { Asker } from "./approval.js";
import type { Printer } from "./printer.js";
import { visible } from "./visible.js";

/** `mcpServers` in glassloop.config.json: each server's tools join `run` and `chat` as `<name>_<tool>`. */
export const mcpServersSchema = z.record(
  z.string().regex(/^[a-zA-Z0-9-]{1,32}$/, "a server name is 1-32 letters, digits or '-'"),
  z.union([
    z.strictObject({
      command: z.string().min(1),
      args: z.array(z.string()).optional(),
      env: z.record(z.string(), z.string()).optional(),
      cwd: z.string().optional(),
    }),
    z.strictObject({ url: z.url(), headers: z.record(z.string(), z.string()).optional() }),
  ]),
);

/** The servers of the config, connected. */
export interface ConnectedMcpServers {
  sources: McpClient[];
}

/**
 * Connects every configured server (the MCP SDK is loaded only here, so a config without servers
 * never needs it). A server's questions go to `onElicitation` (the terminal form on a terminal;
 * without one the client offers no elicitation), its warnings to `warn`.
 */
export async function connectMcpServers(
  servers: z.output<typeof mcpServersSchema>,
  options: { onElicitation?: McpElicitationHandler; warn: (message: string) => void },
): Promise<ConnectedMcpServers> {
  const { McpClient } = await import("../mcp/client.js");
  const sources: McpClient[] = [];
  try {
    for (const [name, server] of Object.entries(servers)) {
      sources.push(
        await McpClient.connect({
          name,
          prefix: name,
          ...server,
          ...(options.onElicitation && { onElicitation: options.onElicitation }),
          onWarning: options.warn,
        }),
      );
    }
  } catch (error) {
    await Promise.all(sources.map((s) => s.close()));
    throw error;
  }
  return { sources };
}

/**
 * `/prompt` in `glassloop chat`: without arguments, lists the servers' prompts; with
 * `<server> <prompt> [name=value ...]`, gets that prompt and returns its text (the messages' texts,
 * one after another) for the chat to send as the user's message, after showing it. Undefined when
 * there is nothing to send (a listing, a mistake, which is said).
 */
export async function promptCommand(
  servers: readonly McpClient[],
  args: readonly string[],
  printer: Printer,
): Promise<string | undefined> {
  const e = printer.err;
  if (servers.length === 0) {
    printer.note('no MCP servers (add "mcpServers" to glassloop.config.json)');
    return undefined;
  }
  const [serverName, promptName, ...pairs] = args;
  if (serverName === undefined) {
    for (const server of servers) {
      const prompts = await server.prompts.list().catch((error: unknown) => {
        printer.note(
          e.yellow(`  ${visible(server.name)}: ${visible(String((error as Error).message ?? error))}`),
        );
        return [];
      });
      for (const p of prompts) {
        const params = (p.arguments ?? []).map((a) => (a.required ? a.name : `${a.name}?`)).join(" ");
        printer.note(
          `  ${e.bold(visible(`${server.name} ${p.name}`))}${params ? ` ${visible(params)}` : ""}${p.description ? e.dim(`  ${visible(p.description.slice(0, 200))}`) : ""}`,
        );
      }
    }
    printer.note(e.dim("  /prompt <server> <prompt> name=value ...  sends the prompt as your message"));
    return undefined;
  }
  const server = servers.find((s) => s.name === serverName);
  if (!server || promptName === undefined) {
    printer.note(
      e.yellow(
        server
          ? "usage: /prompt <server> <prompt> name=value ..."
          : `no MCP server named ${visible(serverName)}`,
      ),
    );
    return undefined;
  }
  const values: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) {
      printer.note(e.yellow(`arguments are name=value, not ${visible(pair)}`));
      return undefined;
    }
    values[pair.slice(0, at)] = pair.slice(at + 1);
  }
  try {
    const messages = await server.prompts.get(promptName, values);
    const text = messages.map((m) => m.text).join("\n\n");
    printer.note(e.dim(`prompt ${visible(`${serverName} ${promptName}`)}:`));
    printer.note(e.dim(visible(text.length > 2000 ? `${text.slice(0, 2000)}…` : text)));
    return text;
  } catch (error) {
    printer.note(e.red(`✗ ${visible((error as Error).message ?? String(error))}`));
    return undefined;
  }
}

/** Most fields one question may have: a server cannot keep the person typing forever. */
const MAX_FIELDS = 30;
/** Tries per field before the whole question is cancelled. */
const MAX_TRIES = 3;

type Field = {
  name: string;
  label: string;
  type: string;
  required: boolean;
  fallback?: unknown;
  choices?: string[];
  multiple?: boolean;
  minimum?: number;
  maximum?: number;
};

/**
 * Asks a server's question on the terminal: who asks and what (control characters made visible),
 * then "Answer? [y/N/c]" (n declines, c cancels), then each field with its type, choices and
 * default; an empty line keeps the default or leaves an optional field out. A field answered
 * wrongly three times, Ctrl-C, or the server withdrawing its question cancels. One question at a
 * time, like approvals.
 */
export function terminalElicitation(
  printer: Printer,
  asker: Asker,
  hooks: { before?: () => void } = {},
): McpElicitationHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const answer = queue.then(() => ask(printer, asker, request, hooks));
    queue = answer.catch(() => undefined);
    return answer.catch((): McpElicitationAnswer => ({ action: "cancel" }));
  };
}

async function ask(
  printer: Printer,
  asker: Asker,
  request: McpElicitation,
  hooks: { before?: () => void },
): Promise<McpElicitationAnswer> {
  const { signal } = request;
  if (signal.aborted) return { action: "cancel" };
  hooks.before?.();
  const e = printer.err;
  const line = (query: string) =>
    new Promise<string>((resolve, reject) => {
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      asker.question(query, { signal }, resolve);
    });
  const fields = fieldsOf(request.schema);
  printer.note(`${e.yellow("?")} MCP server ${e.bold(visible(request.server))} asks:`);
  printer.note(`    ${visible(request.message.slice(0, 2000))}`);
  if (fields === undefined) {
    printer.note(e.red(`  its form has more than ${MAX_FIELDS} fields or is not a flat object: declined`));
    return { action: "decline" };
  }
  const reply = (await line("  Answer? [y/N/c] ")).trim().toLowerCase();
  if (reply === "c" || reply === "cancel") return { action: "cancel" };
  if (!/^y(es)?$/.test(reply)) {
    printer.note(e.red("  declined"));
    return { action: "decline" };
  }
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [index, field] of fields.entries()) {
    let value: string | number | boolean | string[] | undefined;
    for (let tries = 1; ; tries++) {
      const typed = (await line(`  (${index + 1}/${fields.length}) ${promptOf(field)}: `)).trim();
      const parsed = parse(field, typed);
      if (parsed.ok) {
        value = parsed.value;
        break;
      }
      printer.note(e.red(`    ${parsed.why}`));
      if (tries >= MAX_TRIES) {
        printer.note(e.red("  cancelled"));
        return { action: "cancel" };
      }
    }
    if (value !== undefined) content[field.name] = value;
  }
  printer.note(e.green("  answered"));
  return { action: "accept", content };
}

function fieldsOf(schema: Record<string, unknown>): Field[] | undefined {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return [];
  const entries = Object.entries(properties as Record<string, Record<string, unknown>>);
  if (entries.length > MAX_FIELDS) return undefined;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return entries.map(([name, p]) => {
    const items = (p.items ?? {}) as Record<string, unknown>;
    const choices = choicesOf(p) ?? (p.type === "array" ? choicesOf(items) : undefined);
    return {
      name,
      label: [p.title, p.description].filter((t) => typeof t === "string").join(": ") || name,
      type: typeof p.type === "string" ? p.type : "string",
      required: required.has(name),
      ...(p.default !== undefined && { fallback: p.default }),
      ...(choices && { choices }),
      ...(p.type === "array" && { multiple: true }),
      ...(typeof p.minimum === "number" && { minimum: p.minimum }),
      ...(typeof p.maximum === "number" && { maximum: p.maximum }),
    };
  });
}

/** The allowed values of an enum (`enum`, or `oneOf`/`anyOf` of `const`s). */
function choicesOf(p: Record<string, unknown>): string[] | undefined {
  if (Array.isArray(p.enum)) return p.enum.map(String);
  const options = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  return options?.map((o) => String((o as { const?: unknown }).const));
}

function promptOf(field: Field): string {
  const kind = field.choices
    ? `${field.multiple ? "some of" : "one of"} ${field.choices.join(", ")}`
    : field.type === "boolean"
      ? "y/n"
      : field.type;
  const fallback = field.fallback !== undefined ? ` [${JSON.stringify(field.fallback)}]` : "";
  const optional = field.required ? "" : ", optional";
  return visible(`${field.label.slice(0, 300)} (${kind.slice(0, 300)}${optional})${fallback}`);
}

type Parsed =
  | { ok: true; value: string | number | boolean | string[] | undefined }
  | { ok: false; why: string };

function parse(field: Field, typed: string): Parsed {
  if (typed === "") {
    // An empty line keeps the default (the client fills it in) or leaves an optional field out.
    if (field.fallback !== undefined || !field.required) return { ok: true, value: undefined };
    return { ok: false, why: "this field is required" };
  }
  if (field.multiple) {
    const picked = typed
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const wrong = picked.filter((p) => field.choices && !field.choices.includes(p));
    return wrong.length > 0
      ? { ok: false, why: `not a choice: ${wrong.join(", ")}` }
      : { ok: true, value: picked };
  }
  if (field.choices)
    return field.choices.includes(typed)
      ? { ok: true, value: typed }
      : { ok: false, why: "not one of the choices" };
  if (field.type === "boolean") {
    if (/^y(es)?$/i.test(typed)) return { ok: true, value: true };
    if (/^no?$/i.test(typed)) return { ok: true, value: false };
    return { ok: false, why: "answer y or n" };
  }
  if (field.type === "number" || field.type === "integer") {
    const n = Number(typed);
    if (!Number.isFinite(n) || (field.type === "integer" && !Number.isInteger(n)))
      return { ok: false, why: `not ${field.type === "integer" ? "an integer" : "a number"}` };
    if (
      (field.minimum !== undefined && n < field.minimum) ||
      (field.maximum !== undefined && n > field.maximum)
    )
      return { ok: false, why: `must be between ${field.minimum ?? "-∞"} and ${field.maximum ?? "∞"}` };
    return { ok: true, value: n };
  }
  return { ok: true, value: typed };
}
