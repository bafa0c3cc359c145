import { fileDataUrl, filenameOf } from "../../core/files.js";
import { imageUrl } from "../../core/images.js";
import type { FilePart, ImagePart, Message, ToolMessage } from "../../core/vocabulary/messages.js";
import {
  checkedFiles,
  toolAttachmentsCaption,
  turnAttachments,
  UnsupportedContentError,
} from "../../models/attachments.js";
import { checkedImages } from "../../models/images.js";
import type { ModelRequest, ToolChoice } from "../../models/model.js";
import { normalizeToolCallIds } from "../../models/tool-call-ids.js";
import type { OpenAIQuirks } from "./quirks.js";
import type { ChatMessage, ChatRequestBody, ChatToolChoice, ChatUserPart } from "./wire.js";

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
  const source = normalizeToolCallIds(request.messages, quirks.toolCallIds);
  for (let i = 0; i < source.length; i++) {
    const m = source[i] as Message;
    messages.push(toChatMessage(m));
    // Tool messages hold only text: a turn's tool images and files follow its results as one user message.
    if (m.role === "tool" && source[i + 1]?.role !== "tool") {
      const attached = turnAttachments(source, i, toolParts);
      if (attached) messages.push({ role: "user", content: attached });
    }
  }
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
      return { role: m.role, content: m.content };
    case "user":
      if (!m.images?.length && !m.files?.length) return { role: "user", content: m.content };
      return {
        role: "user",
        content: [
          { type: "text", text: m.content },
          ...checkedImages(m.images ?? []).map(toImagePart),
          ...checkedFiles(m.files ?? []).map(toFilePart),
        ],
      };
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

function toolParts(m: ToolMessage): ChatUserPart[] {
  return [
    { type: "text", text: toolAttachmentsCaption(m) },
    ...(m.images ?? []).map(toImagePart),
    ...(m.files ?? []).map(toFilePart),
  ];
}

function toImagePart(image: ImagePart): ChatUserPart {
  return { type: "image_url", image_url: { url: imageUrl(image) } };
}

/** A document as a `file` part: its bytes as a `data:` URL with a name (the API has no file by URL). */
function toFilePart(file: FilePart): ChatUserPart {
  if (file.data === undefined)
    throw new UnsupportedContentError(
      "openai",
      `Chat Completions cannot take a file by URL (${(file.url ?? "").slice(0, 80)}): pass the file's bytes as data, or use the Responses API (openai-responses:), Anthropic or Gemini`,
    );
  return { type: "file", file: { filename: filenameOf(file), file_data: fileDataUrl(file) } };
}

function toChatToolChoice(choice: ToolChoice): ChatToolChoice {
  return typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
}
