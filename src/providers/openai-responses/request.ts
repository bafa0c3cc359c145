import { fileDataUrl, filenameOf } from "../../core/files.js";
import { imageUrl } from "../../core/images.js";
import type {
  FilePart,
  ImagePart,
  Message,
  ReasoningPart,
  ToolMessage,
} from "../../core/vocabulary/messages.js";
import { checkedFiles, toolAttachmentsCaption, turnAttachments } from "../../models/attachments.js";
import { checkedImages } from "../../models/images.js";
import type { ModelRequest, ToolChoice } from "../../models/model.js";
import { ownReasoning } from "../../models/reasoning.js";
import { normalizeToolCallIds } from "../../models/tool-call-ids.js";
import { OPENAI_TOOL_CALL_IDS } from "../openai/quirks.js";
import type {
  ResponsesInputItem,
  ResponsesInputPart,
  ResponsesReasoningItem,
  ResponsesRequestBody,
} from "./wire.js";
import { RESPONSES_PROVIDER } from "./wire.js";

// Readers find the wire's label beside the body it shapes.
export { RESPONSES_PROVIDER } from "./wire.js";

/** Settings of the body that do not come from the `ModelRequest`. */
export interface ResponsesBodyOptions {
  model: string;
  /** `reasoning` as sent (effort, summary); unset sends none. */
  reasoning?: { effort?: string; summary?: string };
  parallelToolCalls?: boolean;
  /** `store` as sent; glassloop sends `false` (stateless) unless told otherwise. */
  store: boolean;
  /** Continue a stored response: only the messages after `afterIndex` are sent as input. */
  previous?: { responseId: string; afterIndex: number };
}

/**
 * The body of `POST /v1/responses`: instructions apart, the whole history as input items (or, when
 * continuing a stored response, only what came after it), reasoning items carried back with their
 * encrypted content before the calls they led to.
 */
export function toResponsesBody(request: ModelRequest, options: ResponsesBodyOptions): ResponsesRequestBody {
  const messages = normalizeToolCallIds(request.messages, OPENAI_TOOL_CALL_IDS);
  const start = options.previous ? options.previous.afterIndex + 1 : 0;
  const input: ResponsesInputItem[] = [];
  for (let i = start; i < messages.length; i++) {
    const m = messages[i] as Message;
    pushItems(input, m);
    // Function outputs are sent as text: a turn's tool images and files follow its outputs as one user message.
    if (m.role === "tool" && messages[i + 1]?.role !== "tool") {
      const attached = turnAttachments(messages, i, toolParts, start);
      if (attached) input.push({ role: "user", content: attached });
    }
  }
  const body: ResponsesRequestBody =
    request.instructions !== undefined
      ? { model: options.model, instructions: request.instructions, input }
      : { model: options.model, input };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    }));
    if (request.toolChoice !== undefined) body.tool_choice = toToolChoice(request.toolChoice);
    if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (options.reasoning) body.reasoning = options.reasoning;
  body.store = options.store;
  // Stateless reasoning needs the chain itself back: without `store`, only the encrypted content
  // lets the next turn continue it.
  if (!options.store && options.reasoning) body.include = ["reasoning.encrypted_content"];
  if (options.previous) body.previous_response_id = options.previous.responseId;
  if (request.stream) body.stream = true;
  return body;
}

function toolParts(m: ToolMessage): ResponsesInputPart[] {
  return [
    { type: "input_text", text: toolAttachmentsCaption(m) },
    ...(m.images ?? []).map(toInputImage),
    ...(m.files ?? []).map(toInputFile),
  ];
}

function pushItems(input: ResponsesInputItem[], m: Message): void {
  switch (m.role) {
    case "system":
      input.push({ role: "system", content: m.content });
      return;
    case "user":
      input.push(
        m.images?.length || m.files?.length
          ? {
              role: "user",
              content: [
                { type: "input_text", text: m.content },
                ...checkedImages(m.images ?? []).map(toInputImage),
                ...checkedFiles(m.files ?? []).map(toInputFile),
              ],
            }
          : { role: "user", content: m.content },
      );
      return;
    case "tool":
      input.push({ type: "function_call_output", call_id: m.toolCallId, output: m.content });
      return;
    case "assistant":
      for (const item of reasoningItems(ownReasoning(m, RESPONSES_PROVIDER))) input.push(item);
      if (m.content !== "") input.push({ role: "assistant", content: m.content });
      for (const call of m.toolCalls ?? [])
        input.push({ type: "function_call", call_id: call.id, name: call.name, arguments: call.arguments });
      return;
  }
}

/** Parts sharing an id are one reasoning item (one part per summary); a lone empty part has none. */
export function reasoningItems(parts: readonly ReasoningPart[]): ResponsesReasoningItem[] {
  const items: ResponsesReasoningItem[] = [];
  let group: ReasoningPart[] = [];
  const flush = () => {
    const first = group[0];
    if (!first) return;
    const texts = group.length === 1 && first.text === "" ? [] : group.map((p) => p.text);
    const item: ResponsesReasoningItem = {
      type: "reasoning",
      ...(first.id !== undefined && { id: first.id }),
      summary: texts.map((text) => ({ type: "summary_text", text })),
    };
    if (first.signature !== undefined) item.encrypted_content = first.signature;
    items.push(item);
    group = [];
  };
  for (const part of parts) {
    if (group.length > 0 && (part.id === undefined || part.id !== group[0]?.id)) flush();
    group.push(part);
  }
  flush();
  return items;
}

function toInputImage(image: ImagePart): ResponsesInputPart {
  return { type: "input_image", image_url: imageUrl(image), detail: "auto" };
}

/** A document as `input_file`: its bytes as a `data:` URL with a name, or its URL. */
function toInputFile(file: FilePart): ResponsesInputPart {
  return file.data !== undefined
    ? { type: "input_file", filename: filenameOf(file), file_data: fileDataUrl(file) }
    : { type: "input_file", file_url: file.url ?? "" };
}

function toToolChoice(choice: ToolChoice): NonNullable<ResponsesRequestBody["tool_choice"]> {
  return typeof choice === "string" ? choice : { type: "function", name: choice.name };
}
