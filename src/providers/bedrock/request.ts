/**
 * glassloop's request as a Bedrock Converse body: the system prompt as `system` blocks, the
 * conversation as alternating user and assistant messages (a turn's tool results are one user
 * message of `toolResult` blocks, images and PDFs inside them), tools as `toolSpec`s, and the
 * model's own reasoning sent back as `reasoningContent` with its signature.
 */
import type { FilePart, ImagePart, Message } from "../../core/vocabulary/messages.js";
import { checkedFiles, UnsupportedContentError } from "../../models/attachments.js";
import { checkedImages } from "../../models/images.js";
import type { ModelRequest, ToolChoice } from "../../models/model.js";
import { ownReasoning } from "../../models/reasoning.js";
import { parseArguments } from "../../models/tool-arguments.js";
import { ANTHROPIC_TOOL_CALL_IDS, normalizeToolCallIds } from "../../models/tool-call-ids.js";

/** A content block of a Converse message. */
export type ConverseBlock = Record<string, unknown>;

/** One Converse message. */
export interface ConverseMessage {
  role: "user" | "assistant";
  content: ConverseBlock[];
}

/** What a Bedrock model adds to every request. */
export interface ConverseSettings {
  /** Put a `cachePoint` after the system prompt and after the conversation (prompt caching). */
  cache?: boolean;
  /** Passed as `additionalModelRequestFields`, e.g. `{ thinking: { type: "enabled", budget_tokens: 1024 } }`. */
  additionalModelRequestFields?: Record<string, unknown>;
}

/** The Converse body of `request` (the model id travels in the URL, not the body). */
export function toConverseBody(
  request: ModelRequest,
  settings: ConverseSettings,
  provider: string,
): Record<string, unknown> {
  const messages = toConverseMessages(
    normalizeToolCallIds(request.messages, ANTHROPIC_TOOL_CALL_IDS),
    provider,
  );
  const system: ConverseBlock[] = request.instructions ? [{ text: request.instructions }] : [];
  if (settings.cache) {
    if (system.length > 0) system.push({ cachePoint: { type: "default" } });
    messages.at(-1)?.content.push({ cachePoint: { type: "default" } });
  }
  const inference: Record<string, unknown> = {};
  if (request.maxOutputTokens !== undefined) inference.maxTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) inference.temperature = request.temperature;
  const body: Record<string, unknown> = { messages, system, inferenceConfig: inference };
  if (request.tools.length > 0 && request.toolChoice !== "none") {
    body.toolConfig = {
      tools: request.tools.map((t) => ({
        toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters } },
      })),
      ...toolChoiceOf(request.toolChoice),
    };
  } else if (request.tools.length > 0 || hasToolBlocks(messages)) {
    // Converse has no "none": a transcript with tool blocks still needs the tools declared, so
    // they are, and the instruction not to call one is the best the API allows.
    body.toolConfig = {
      tools: request.tools.map((t) => ({
        toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters } },
      })),
    };
  }
  const toolConfig = body.toolConfig as { tools: ConverseBlock[] } | undefined;
  if (settings.cache && toolConfig && toolConfig.tools.length > 0)
    toolConfig.tools.push({ cachePoint: { type: "default" } });
  if (settings.additionalModelRequestFields)
    body.additionalModelRequestFields = settings.additionalModelRequestFields;
  return body;
}

function toolChoiceOf(choice: ToolChoice | undefined): Record<string, unknown> {
  if (choice === undefined || choice === "auto") return {};
  if (choice === "required") return { toolChoice: { any: {} } };
  if (typeof choice === "object") return { toolChoice: { tool: { name: choice.name } } };
  return {};
}

function hasToolBlocks(messages: readonly ConverseMessage[]): boolean {
  return messages.some((m) => m.content.some((b) => "toolUse" in b || "toolResult" in b));
}

/** The conversation as Converse messages; consecutive messages of one role merge (Converse requires alternation). */
export function toConverseMessages(messages: readonly Message[], provider: string): ConverseMessage[] {
  const out: ConverseMessage[] = [];
  const push = (role: ConverseMessage["role"], content: ConverseBlock[]) => {
    if (content.length === 0) return;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const m of messages) {
    if (m.role === "system") continue;
    if (m.role === "user") {
      push("user", [
        ...(m.content ? [{ text: m.content }] : []),
        ...checkedImages(m.images ?? []).map((image) => imageBlock(image, provider)),
        ...checkedFiles(m.files ?? []).map((file, i) => documentBlock(file, i, provider)),
      ]);
    } else if (m.role === "assistant") {
      const blocks: ConverseBlock[] = [];
      for (const part of ownReasoning(m, provider)) {
        blocks.push(
          part.redacted
            ? { reasoningContent: { redactedContent: part.signature ?? "" } }
            : {
                reasoningContent: {
                  reasoningText: { text: part.text, ...(part.signature && { signature: part.signature }) },
                },
              },
        );
      }
      if (m.content) blocks.push({ text: m.content });
      for (const call of m.toolCalls ?? [])
        blocks.push({ toolUse: { toolUseId: call.id, name: call.name, input: inputOf(call.arguments) } });
      push("assistant", blocks);
    } else {
      push("user", [
        {
          toolResult: {
            toolUseId: m.toolCallId,
            content: [
              { text: m.content },
              ...(m.images ?? []).map((image) => imageBlock(image, provider)),
              ...(m.files ?? []).map((file, i) => documentBlock(file, i, provider)),
            ],
            status: m.isError ? "error" : "success",
          },
        },
      ]);
    }
  }
  return out;
}

/** Converse takes an object as a tool's input; text that is not a JSON object travels wrapped. */
function inputOf(text: string): unknown {
  const value = parseArguments(text || "{}");
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : { input: value };
}

function imageBlock(image: ImagePart, provider: string): ConverseBlock {
  if (image.data === undefined)
    throw new UnsupportedContentError(
      provider,
      `${provider}: Converse reads images from their bytes or S3 only; pass the image's data instead of a URL`,
    );
  return {
    image: {
      format: image.mediaType.replace(/^image\//, "").replace("jpg", "jpeg"),
      source: { bytes: image.data },
    },
  };
}

function documentBlock(file: FilePart, index: number, provider: string): ConverseBlock {
  if (file.data === undefined)
    throw new UnsupportedContentError(
      provider,
      `${provider}: Converse reads documents from their bytes or S3 only; pass the file's data instead of a URL`,
    );
  // Converse allows letters, digits, single spaces, hyphens, parentheses and brackets in a name.
  const name =
    (file.filename ?? "")
      .replace(/\.[A-Za-z0-9]+$/, "")
      .replace(/[^A-Za-z0-9 ()[\]-]/g, " ")
      .replace(/\s+/g, " ")
      .trim() || `document-${index + 1}`;
  return { document: { format: "pdf", name, source: { bytes: file.data } } };
}
