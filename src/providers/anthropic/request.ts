import type { FilePart, ImagePart, Message, ToolCall } from "../../core/vocabulary/messages.js";
import { checkedFiles } from "../../models/attachments.js";
import { checkedImages } from "../../models/images.js";
import type { ModelRequest, ToolChoice } from "../../models/model.js";
import { ownReasoning } from "../../models/reasoning.js";
import { ANTHROPIC_TOOL_CALL_IDS, normalizeToolCallIds } from "../../models/tool-call-ids.js";
import { type AnthropicCachePolicy, placeCacheBreakpoints } from "./cache.js";
import type {
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicRequestBlock,
  AnthropicRequestBody,
  AnthropicToolChoice,
} from "./wire.js";

/** Settings of the request body that do not come from the `ModelRequest`. */
export interface AnthropicBodyOptions {
  /** The model name sent as `model`, e.g. `claude-sonnet-4-5`. */
  model: string;
  /** `max_tokens` when the request sets no `maxOutputTokens` (Anthropic requires one). */
  maxTokens: number;
  /** Extended thinking's token budget; unset: no thinking. */
  thinkingBudget?: number;
  /** Where prompt-cache breakpoints go; unset: none. */
  cache?: AnthropicCachePolicy;
}

/**
 * The JSON body of `POST /v1/messages` for `request`: instructions as top-level `system`, tool calls
 * as `tool_use` blocks, all results of one turn as `tool_result` blocks of one user message, and
 * tool-call ids rewritten to Anthropic's alphabet when another provider made them.
 */
export function toAnthropicBody(request: ModelRequest, options: AnthropicBodyOptions): AnthropicRequestBody {
  const messages = normalizeToolCallIds(request.messages, ANTHROPIC_TOOL_CALL_IDS);
  const systemParts = request.instructions ? [request.instructions] : [];
  const turns: AnthropicMessageParam[] = [];
  for (const message of messages) {
    if (message.role === "system") {
      // Anthropic has no system role; a system message inside a history joins the system prompt.
      if (message.content) systemParts.push(message.content);
      continue;
    }
    const blocks = toBlocks(message);
    if (blocks.length === 0) continue;
    const role = message.role === "assistant" ? "assistant" : "user";
    const last = turns.at(-1);
    // Consecutive messages of one role become one turn: Anthropic wants the roles to alternate.
    if (last && last.role === role) (last.content as AnthropicRequestBlock[]).push(...blocks);
    else turns.push({ role, content: blocks });
  }

  const body: AnthropicRequestBody = {
    model: options.model,
    max_tokens: request.maxOutputTokens ?? options.maxTokens,
    ...(systemParts.length > 0 && { system: systemParts.join("\n\n") }),
    messages: turns.map(finishTurn),
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
    }));
    if (request.toolChoice !== undefined) {
      const choice = toToolChoice(request.toolChoice);
      // Thinking allows only auto and none: a forced call (the planning tool's first step, an
      // output tool) is asked for as auto, and the loop's checks still apply to what comes back.
      body.tool_choice =
        options.thinkingBudget !== undefined && (choice.type === "any" || choice.type === "tool")
          ? { type: "auto" }
          : choice;
    }
  }
  // With thinking on, Anthropic requires the assistant turn whose tool results this request
  // carries to open with its thinking block, and says to turn thinking off otherwise: a turn
  // another model made (a fallback, a switched model) has none to give, so this one request goes
  // without thinking; the next turn Claude makes itself thinks again.
  const thinking = options.thinkingBudget !== undefined && !unthinkingToolTurn(body.messages);
  if (thinking && options.thinkingBudget !== undefined) {
    body.thinking = { type: "enabled", budget_tokens: options.thinkingBudget };
  } else if (request.temperature !== undefined) {
    // Thinking rejects any temperature but the default, so it is only sent without thinking.
    body.temperature = request.temperature;
  }
  if (options.cache !== undefined) placeCacheBreakpoints(body, options.cache);
  // As the official SDKs do: `stream` only when streaming (some compatible servers reject `false`).
  if (request.stream === true) body.stream = true;
  return body;
}

/**
 * Whether the last assistant turn is a tool turn the request answers (only tool results follow
 * it) that does not open with a thinking block.
 */
function unthinkingToolTurn(turns: readonly AnthropicRequestBody["messages"][number][]): boolean {
  const last = turns.at(-1);
  const assistant = turns.at(-2);
  if (last?.role !== "user" || assistant?.role !== "assistant" || typeof assistant.content === "string")
    return false;
  const answers =
    typeof last.content !== "string" &&
    last.content.some((b) => (b as { type: string }).type === "tool_result");
  const blocks = assistant.content as { type: string }[];
  const first = blocks[0]?.type;
  return (
    answers &&
    blocks.some((b) => b.type === "tool_use") &&
    first !== "thinking" &&
    first !== "redacted_thinking"
  );
}

/** glassloop's tool choice in Anthropic's words. */
export function toToolChoice(choice: ToolChoice): AnthropicToolChoice {
  if (choice === "auto") return { type: "auto" };
  if (choice === "required") return { type: "any" };
  if (choice === "none") return { type: "none" };
  return { type: "tool", name: choice.name };
}

/**
 * A tool call's arguments as the object Anthropic's `input` must be. Arguments that are not a JSON
 * object (another provider's model produced broken JSON, which became feedback) are kept as text
 * under `_raw_arguments`, so the model can still see what it sent.
 */
export function toToolInput(call: ToolCall): Record<string, unknown> {
  if (call.arguments.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Falls through to the raw text.
  }
  return { _raw_arguments: call.arguments };
}

function toBlocks(message: Exclude<Message, { role: "system" }>): AnthropicRequestBlock[] {
  switch (message.role) {
    case "user":
      return [
        { type: "text", text: message.content },
        ...checkedImages(message.images ?? []).map(toImageBlock),
        ...checkedFiles(message.files ?? []).map(toDocumentBlock),
      ];
    case "tool":
      return [
        {
          type: "tool_result",
          tool_use_id: message.toolCallId,
          // Anthropic's tool results hold images and documents themselves.
          content:
            message.images?.length || message.files?.length
              ? [
                  { type: "text", text: message.content },
                  ...(message.images ?? []).map(toImageBlock),
                  ...(message.files ?? []).map(toDocumentBlock),
                ]
              : message.content,
          ...(message.isError === true && { is_error: true }),
        },
      ];
    case "assistant": {
      const blocks: AnthropicRequestBlock[] = [];
      // Thinking first and byte for byte: the API checks the signature against the text.
      for (const part of ownReasoning(message, "anthropic")) {
        if (part.redacted) blocks.push({ type: "redacted_thinking", data: part.signature ?? "" });
        else blocks.push({ type: "thinking", thinking: part.text, signature: part.signature ?? "" });
      }
      // Anthropic rejects empty and whitespace-only text blocks.
      if (message.content.trim() !== "") blocks.push({ type: "text", text: message.content });
      for (const call of message.toolCalls ?? []) {
        blocks.push({ type: "tool_use", id: call.id, name: call.name, input: toToolInput(call) });
      }
      return blocks;
    }
  }
}

function toImageBlock(image: ImagePart): AnthropicImageBlock {
  return {
    type: "image",
    source:
      image.data !== undefined
        ? { type: "base64", media_type: image.mediaType, data: image.data }
        : { type: "url", url: image.url ?? "" },
  };
}

/** A PDF as a `document` block, by its bytes or a URL; its name, when it has one, as the title. */
function toDocumentBlock(file: FilePart): AnthropicDocumentBlock {
  const block: AnthropicDocumentBlock = {
    type: "document",
    source:
      file.data !== undefined
        ? { type: "base64", media_type: file.mediaType, data: file.data }
        : { type: "url", url: file.url ?? "" },
  };
  if (file.filename !== undefined) block.title = file.filename;
  return block;
}

/** Tool results first (Anthropic requires it), and a lone user text as a plain string. */
function finishTurn(turn: AnthropicMessageParam): AnthropicMessageParam {
  const blocks = turn.content as AnthropicRequestBlock[];
  if (turn.role === "assistant") return turn;
  const results = blocks.filter((b) => b.type === "tool_result");
  const rest = blocks.filter((b) => b.type !== "tool_result");
  const ordered = [...results, ...rest];
  const only = ordered[0];
  if (ordered.length === 1 && only?.type === "text") return { role: "user", content: only.text };
  return { role: "user", content: ordered };
}
