import type { Message } from "../../memory/messages.js";
import type { ModelRequest, ToolChoice } from "../model.js";
import { normalizeToolCallIds } from "../tool-call-ids.js";
import type { OpenAIQuirks } from "./quirks.js";
import type { ChatMessage, ChatRequestBody, ChatToolChoice } from "./wire.js";

/** Settings of an OpenAI-compatible model that are not part of a single request. */
export interface ChatSettings {
  /** The model name sent as `model`. */
  model: string;
  /** Sent as `parallel_tool_calls` when tools are offered; unset leaves the server's default. */
  parallelToolCalls?: boolean;
}

/** The Chat Completions body for `request`. */
export function toChatBody(
  request: ModelRequest,
  settings: ChatSettings,
  quirks: OpenAIQuirks,
): ChatRequestBody {
  const messages: ChatMessage[] = [];
  if (request.instructions !== undefined) messages.push({ role: "system", content: request.instructions });
  for (const m of normalizeToolCallIds(request.messages, quirks.toolCallIds)) messages.push(toChatMessage(m));
  const body: ChatRequestBody = { model: settings.model, messages };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    if (request.toolChoice !== undefined) body.tool_choice = toChatToolChoice(request.toolChoice);
    if (settings.parallelToolCalls !== undefined) body.parallel_tool_calls = settings.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body[quirks.maxTokensField] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.stream) {
    body.stream = true;
    if (quirks.streamUsage) body.stream_options = { include_usage: true };
  }
  return body;
}

function toChatMessage(m: Message): ChatMessage {
  switch (m.role) {
    case "system":
    case "user":
      return { role: m.role, content: m.content };
    case "assistant": {
      if (!m.toolCalls?.length) return { role: "assistant", content: m.content };
      const tool_calls = m.toolCalls.map((c) => ({
        id: c.id,
        type: "function" as const,
        function: { name: c.name, arguments: c.arguments },
      }));
      // With tool calls, empty text is left out rather than sent as "" (some servers reject that).
      return m.content
        ? { role: "assistant", content: m.content, tool_calls }
        : { role: "assistant", tool_calls };
    }
    case "tool":
      // Chat Completions has no error flag: the content itself tells the model what went wrong.
      return { role: "tool", tool_call_id: m.toolCallId, content: m.content };
  }
}

function toChatToolChoice(choice: ToolChoice): ChatToolChoice {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}
