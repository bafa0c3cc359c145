/**
 * The provider-neutral view of a model request that replays and request diffs compare, and the
 * pieces every provider's reader of its own request bodies builds it from (each provider's
 * `request.ts` reads the bodies it writes: `read…Body`).
 */
import type { ToolChoice } from "../../models/model.js";
import { parseArguments } from "../../models/tool-arguments.js";

/** A message as compared: ids are positional (`#1`, `#2`, …) so only the pairing matters. */
export type CanonicalMessage =
  | { role: "user"; content: string[] }
  | { role: "assistant"; content: string; toolCalls?: { id: string; name: string; arguments: unknown }[] }
  | { role: "tool"; toolCallId: string; content: string };

/** What a request asks, without transport details (stream flags, model name, headers). */
export interface CanonicalRequest {
  instructions?: string;
  messages: CanonicalMessage[];
  tools: { name: string; description: string; parameters: unknown }[];
  toolChoice?: ToolChoice;
  maxOutputTokens?: number;
  temperature?: number;
}

/** The request's settings added to `base`, each only when the body had it. */
export function settings(
  base: CanonicalRequest,
  toolChoice: ToolChoice | undefined,
  maxOutputTokens: unknown,
  temperature: unknown,
): CanonicalRequest {
  return {
    ...base,
    ...(toolChoice !== undefined && { toolChoice }),
    ...(typeof maxOutputTokens === "number" && { maxOutputTokens }),
    ...(typeof temperature === "number" && { temperature }),
  };
}

/** An assistant message with its calls (`[id, name, arguments]`), none when it made no call. */
export function assistant(
  content: string,
  calls: readonly (readonly [string, string, unknown])[],
): CanonicalMessage {
  if (calls.length === 0) return { role: "assistant", content };
  return {
    role: "assistant",
    content,
    toolCalls: calls.map(([id, name, args]) => ({ id, name, arguments: args })),
  };
}

/** Consecutive user turns are merged: some wire formats merge them, and the meaning is the same. */
export function pushUser(messages: CanonicalMessage[], texts: string[]): void {
  const last = messages.at(-1);
  if (last?.role === "user") last.content.push(...texts);
  else messages.push({ role: "user", content: [...texts] });
}

/** Tool call ids in order of appearance, so providers' id rewriting does not count as a difference. */
export class IdMap {
  readonly #ids = new Map<string, string>();
  of(id: string): string {
    let mapped = this.#ids.get(id);
    if (mapped === undefined) {
      mapped = `#${this.#ids.size + 1}`;
      this.#ids.set(id, mapped);
    }
    return mapped;
  }
}

/** Arguments as a value: JSON text parsed (empty text is `{}`), anything else as it is. */
export function parseArgs(raw: unknown): unknown {
  if (typeof raw !== "string") return raw ?? {};
  if (raw.trim() === "") return {};
  return parseArguments(raw);
}

/** The text of a content that is a string or a list of parts (each a string or `{ text }`). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  return arrayOf(content)
    .map((part) => (typeof part === "string" ? part : String(asRecord(part).text ?? "")))
    .join("");
}

/** `value` if it is an array, else `[]`: a recorded body is untrusted JSON. */
export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `value` if it is a plain object, else `{}`. */
export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
