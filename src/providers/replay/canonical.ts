/**
 * A provider-neutral view of a model request, so a replay can compare what the agent asks now with
 * what it asked in a recording, whichever wire format the recording holds (OpenAI Chat Completions,
 * Anthropic Messages, or glassloop's own normalized body from test doubles and replays).
 */
import type { Message } from "../../core/vocabulary/messages.js";
import type { ModelRequest, ToolChoice } from "../../models/model.js";
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

/** The wire formats a recorded body can be in. */
export type WireFormat = "openai" | "anthropic" | "glassloop";

/** The canonical view of a request the agent makes now. */
export function canonicalFromRequest(request: Omit<ModelRequest, "signal">): CanonicalRequest {
  return fromGlassloop(request as unknown as Record<string, unknown>);
}

/** The canonical view of a recorded request body; `modelId` (`provider:model`) helps tell the format. */
export function canonicalFromBody(body: unknown, modelId: string): CanonicalRequest {
  const record = asRecord(body);
  switch (wireFormatOf(record, modelId)) {
    case "anthropic":
      return fromAnthropic(record);
    case "glassloop":
      return fromGlassloop(record);
    case "openai":
      return fromOpenAI(record);
  }
}

/** Which wire format a recorded body is in. */
export function wireFormatOf(body: Record<string, unknown>, modelId: string): WireFormat {
  if (modelId.startsWith("anthropic:")) return "anthropic";
  const messages = arrayOf(body.messages).map(asRecord);
  const tools = arrayOf(body.tools).map(asRecord);
  if (
    "instructions" in body ||
    messages.some((m) => "toolCalls" in m || "toolCallId" in m) ||
    tools.some((t) => "parameters" in t && !("function" in t))
  ) {
    return "glassloop";
  }
  if ("system" in body || tools.some((t) => "input_schema" in t)) return "anthropic";
  return "openai";
}

function fromGlassloop(body: Record<string, unknown>): CanonicalRequest {
  const ids = new IdMap();
  const messages: CanonicalMessage[] = [];
  let instructions = typeof body.instructions === "string" ? body.instructions : undefined;
  for (const m of arrayOf(body.messages) as Message[]) {
    if (m.role === "system") instructions = m.content;
    else if (m.role === "user") pushUser(messages, [m.content]);
    else if (m.role === "tool")
      messages.push({ role: "tool", toolCallId: ids.of(m.toolCallId), content: m.content });
    else
      messages.push(
        assistant(
          m.content,
          (m.toolCalls ?? []).map((c) => [ids.of(c.id), c.name, parseArgs(c.arguments)]),
        ),
      );
  }
  const tools = arrayOf(body.tools).map((t) => {
    const r = asRecord(t);
    return { name: String(r.name), description: String(r.description ?? ""), parameters: r.parameters };
  });
  return settings(
    { instructions, messages, tools },
    body.toolChoice as ToolChoice | undefined,
    body.maxOutputTokens,
    body.temperature,
  );
}

function fromOpenAI(body: Record<string, unknown>): CanonicalRequest {
  const ids = new IdMap();
  const messages: CanonicalMessage[] = [];
  const system: string[] = [];
  for (const raw of arrayOf(body.messages)) {
    const m = asRecord(raw);
    const text = textOf(m.content);
    if (m.role === "system" || m.role === "developer") {
      if (messages.length === 0) system.push(text);
      else pushUser(messages, [text]);
    } else if (m.role === "user") pushUser(messages, [text]);
    else if (m.role === "tool")
      messages.push({ role: "tool", toolCallId: ids.of(String(m.tool_call_id)), content: text });
    else if (m.role === "assistant") {
      const calls = arrayOf(m.tool_calls).map((c) => {
        const call = asRecord(c);
        const fn = asRecord(call.function);
        return [ids.of(String(call.id ?? "")), String(fn.name), parseArgs(fn.arguments)] as const;
      });
      messages.push(assistant(text, calls));
    }
  }
  const tools = arrayOf(body.tools).map((t) => {
    const fn = asRecord(asRecord(t).function);
    return { name: String(fn.name), description: String(fn.description ?? ""), parameters: fn.parameters };
  });
  const choice = body.tool_choice;
  const toolChoice: ToolChoice | undefined =
    typeof choice === "string"
      ? (choice as ToolChoice)
      : choice === undefined
        ? undefined
        : { name: String(asRecord(asRecord(choice).function).name) };
  return settings(
    { ...(system.length > 0 && { instructions: system.join("\n\n") }), messages, tools },
    toolChoice,
    body.max_completion_tokens ?? body.max_tokens,
    body.temperature,
  );
}

function fromAnthropic(body: Record<string, unknown>): CanonicalRequest {
  const ids = new IdMap();
  const messages: CanonicalMessage[] = [];
  for (const raw of arrayOf(body.messages)) {
    const m = asRecord(raw);
    const blocks =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : arrayOf(m.content).map(asRecord);
    if (m.role === "assistant") {
      const text = blocks
        .filter((b) => b.type === "text")
        .map((b) => String(b.text))
        .join("");
      const calls = blocks
        .filter((b) => b.type === "tool_use")
        .map((b) => [ids.of(String(b.id)), String(b.name), b.input ?? {}] as const);
      messages.push(assistant(text, calls));
      continue;
    }
    for (const b of blocks) {
      if (b.type === "tool_result") {
        messages.push({
          role: "tool",
          toolCallId: ids.of(String(b.tool_use_id)),
          content: textOf(b.content),
        });
      } else if (b.type === "text") pushUser(messages, [String(b.text)]);
    }
  }
  const tools = arrayOf(body.tools).map((t) => {
    const r = asRecord(t);
    return { name: String(r.name), description: String(r.description ?? ""), parameters: r.input_schema };
  });
  const choice = body.tool_choice === undefined ? undefined : asRecord(body.tool_choice);
  const toolChoice: ToolChoice | undefined =
    choice === undefined
      ? undefined
      : choice.type === "any"
        ? "required"
        : choice.type === "tool"
          ? { name: String(choice.name) }
          : (choice.type as ToolChoice);
  const system =
    typeof body.system === "string"
      ? body.system
      : body.system === undefined
        ? undefined
        : textOf(body.system);
  // Anthropic requires max_tokens, so the provider fills in a default the agent never asked for:
  // it is not compared.
  return settings(
    { ...(system !== undefined && { instructions: system }), messages, tools },
    toolChoice,
    undefined,
    body.temperature,
  );
}

function settings(
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

function assistant(
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
function pushUser(messages: CanonicalMessage[], texts: string[]): void {
  const last = messages.at(-1);
  if (last?.role === "user") last.content.push(...texts);
  else messages.push({ role: "user", content: [...texts] });
}

/** Tool call ids in order of appearance, so providers' id rewriting does not count as a difference. */
class IdMap {
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

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== "string") return raw ?? {};
  if (raw.trim() === "") return {};
  return parseArguments(raw);
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  return arrayOf(content)
    .map((part) => (typeof part === "string" ? part : String(asRecord(part).text ?? "")))
    .join("");
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
