/**
 * Reads a recorded request body in whichever wire format it holds (OpenAI Chat Completions,
 * Anthropic Messages, the Gemini API, OpenAI Responses, Bedrock Converse, or glassloop's own
 * normalized body from test doubles and replays) into the provider-neutral view a replay compares;
 * each provider reads its own bodies (`read…Body` in its `request-reader.ts`).
 */
import type { Message } from "../../core/vocabulary/messages.js";
import type { ModelRequest, ToolChoice } from "../../models/model.js";
import { readAnthropicBody } from "../anthropic/request-reader.js";
import { toConverseBody } from "../bedrock/request.js";
import { readConverseBody } from "../bedrock/request-reader.js";
import { toGeminiBody } from "../google/request.js";
import { readGeminiBody } from "../google/request-reader.js";
import { readChatBody } from "../openai/request-reader.js";
import { toResponsesBody } from "../openai-responses/request.js";
import { readResponsesBody } from "../openai-responses/request-reader.js";
import {
  arrayOf,
  asRecord,
  assistant,
  type CanonicalMessage,
  type CanonicalRequest,
  IdMap,
  parseArgs,
  pushUser,
  settings,
} from "./canonical-request.js";

/** The wire formats a recorded body can be in. */
export type WireFormat = "openai" | "anthropic" | "gemini" | "responses" | "bedrock" | "glassloop";

/**
 * The canonical view of a request the agent makes now, to compare with a body recorded in
 * `format`. A format whose body keeps less than the request (Gemini's own schema dialect, the
 * captions of tool images, Converse's missing "auto" and "none") is compared in its own terms: the request is written as that provider
 * would send it and read back by the same reader as the recording.
 */
export function canonicalFromRequest(
  request: Omit<ModelRequest, "signal">,
  format: WireFormat = "glassloop",
): CanonicalRequest {
  const full = request as ModelRequest;
  if (format === "gemini") return readGeminiBody(asRecord(toGeminiBody(full)));
  if (format === "responses")
    return readResponsesBody(asRecord(toResponsesBody(full, { model: "", store: false })));
  if (format === "bedrock") return readConverseBody(toConverseBody(full, {}, "bedrock"));
  return fromGlassloop(request as unknown as Record<string, unknown>);
}

/** The canonical view of a recorded request body; `modelId` (`provider:model`) helps tell the format. */
export function canonicalFromBody(body: unknown, modelId: string): CanonicalRequest {
  const record = asRecord(body);
  switch (wireFormatOf(record, modelId)) {
    case "anthropic":
      return readAnthropicBody(record);
    case "gemini":
      return readGeminiBody(record);
    case "responses":
      return readResponsesBody(record);
    case "bedrock":
      return readConverseBody(record);
    case "glassloop":
      return fromGlassloop(record);
    case "openai":
      return readChatBody(record);
  }
}

/** Which wire format a recorded body is in: by its shape, the model id deciding for Anthropic. */
export function wireFormatOf(body: Record<string, unknown>, modelId: string): WireFormat {
  if (modelId.startsWith("anthropic:")) return "anthropic";
  if ("contents" in body) return "gemini";
  if (modelId.startsWith("bedrock:") || "inferenceConfig" in body || "toolConfig" in body) return "bedrock";
  if ("input" in body && !("messages" in body)) return "responses";
  const messages = arrayOf(body.messages).map(asRecord);
  const tools = arrayOf(body.tools).map(asRecord);
  if (
    "instructions" in body ||
    messages.some((m) => "toolCalls" in m || "toolCallId" in m) ||
    tools.some((t) => "parameters" in t && !("function" in t))
  ) {
    return "glassloop";
  }
  if ("system" in body || "anthropic_version" in body || tools.some((t) => "input_schema" in t))
    return "anthropic";
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
