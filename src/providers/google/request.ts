import type {
  FilePart,
  ImagePart,
  Message,
  ReasoningPart,
  ToolMessage,
} from "../../core/vocabulary/messages.js";
import { checkedFiles, toolAttachmentsCaption, turnAttachments } from "../../models/attachments.js";
import { checkedImages } from "../../models/images.js";
import type { JsonSchema, ModelRequest, ToolSpec } from "../../models/model.js";
import { ownReasoning } from "../../models/reasoning.js";
import { GEMINI_PROVIDER } from "./model-name.js";
import { toGeminiSchema } from "./schema.js";
import type { GeminiContent, GeminiFunctionDeclaration, GeminiPart, GeminiRequestBody } from "./wire.js";

// Readers and tests find these beside the body they shape.
export { GEMINI_PROVIDER, validatesSignatures } from "./model-name.js";

/**
 * The signature Google documents for function calls that no Gemini model signed (another model's
 * calls, a hand-written transcript): Gemini 3 answers 400 when the first call of a step carries no
 * signature, and accepts this one in its place
 * (https://ai.google.dev/gemini-api/docs/thought-signatures#faqs, and Vertex AI's "thought
 * signatures" page, REST section). Sent as the literal string, as the REST examples do.
 */
export const GEMINI_PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator";

/** Settings of the body that do not come from the `ModelRequest`. */
export interface GeminiBodyOptions {
  /** `thinkingConfig` as sent: a token budget (0 turns thinking off on Flash) and thought summaries. */
  thinking?: { budgetTokens?: number; includeThoughts?: boolean };
  /**
   * Put `GEMINI_PLACEHOLDER_SIGNATURE` on the first function call of a model turn whose calls carry
   * no signature (the model validates signatures: Gemini 3 and later; see `validatesSignatures`).
   */
  placeholderSignatures?: boolean;
}

/**
 * The body of `generateContent` for `request`: instructions as `systemInstruction`, turns as
 * `user`/`model` contents (consecutive ones of a role merged), tool calls as `functionCall` parts
 * carrying their `thoughtSignature` exactly as received, results as `functionResponse` parts.
 */
export function toGeminiBody(request: ModelRequest, options: GeminiBodyOptions = {}): GeminiRequestBody {
  const contents: GeminiContent[] = [];
  const system: string[] = request.instructions ? [request.instructions] : [];
  const { messages } = request;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message;
    if (m.role === "system") {
      if (m.content) system.push(m.content);
      continue;
    }
    const parts = partsOf(m, options.placeholderSignatures === true);
    // Function responses hold no images or files here: a turn's tool images and files follow its responses.
    if (m.role === "tool" && messages[i + 1]?.role !== "tool")
      parts.push(...(turnAttachments(messages, i, toolParts) ?? []));
    if (parts.length === 0) continue;
    const role = m.role === "assistant" ? "model" : "user";
    const last = contents.at(-1);
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }
  const body: GeminiRequestBody = { contents };
  if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join("\n\n") }] };
  if (request.tools.length > 0) {
    body.tools = [{ functionDeclarations: request.tools.map(declaration) }];
    const choice = request.toolChoice;
    if (choice !== undefined) {
      body.toolConfig = {
        functionCallingConfig:
          choice === "auto"
            ? { mode: "AUTO" }
            : choice === "none"
              ? { mode: "NONE" }
              : choice === "required"
                ? { mode: "ANY" }
                : { mode: "ANY", allowedFunctionNames: [choice.name] },
      };
    }
  }
  const generation: NonNullable<GeminiRequestBody["generationConfig"]> = {};
  if (request.maxOutputTokens !== undefined) generation.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) generation.temperature = request.temperature;
  if (options.thinking) {
    generation.thinkingConfig = {
      ...(options.thinking.budgetTokens !== undefined && { thinkingBudget: options.thinking.budgetTokens }),
      ...(options.thinking.includeThoughts !== undefined && {
        includeThoughts: options.thinking.includeThoughts,
      }),
    };
  }
  if (Object.keys(generation).length > 0) body.generationConfig = generation;
  return body;
}

// One conversion per schema object: tools are the same objects every step of a run.
const declarations = new WeakMap<JsonSchema, GeminiFunctionDeclaration["parameters"]>();

function declaration(tool: ToolSpec): GeminiFunctionDeclaration {
  let parameters = declarations.get(tool.parameters);
  if (!parameters) {
    parameters = toGeminiSchema(tool.name, tool.parameters);
    declarations.set(tool.parameters, parameters);
  }
  return { name: tool.name, description: tool.description, parameters };
}

function toolParts(m: ToolMessage): GeminiPart[] {
  return [
    { text: toolAttachmentsCaption(m) },
    ...(m.images ?? []).map(toImagePart),
    ...(m.files ?? []).map(toFilePart),
  ];
}

function partsOf(m: Exclude<Message, { role: "system" }>, placeholders: boolean): GeminiPart[] {
  switch (m.role) {
    case "user":
      return [
        { text: m.content },
        ...checkedImages(m.images ?? []).map(toImagePart),
        ...checkedFiles(m.files ?? []).map(toFilePart),
      ];
    case "tool":
      return [
        {
          functionResponse: {
            id: m.toolCallId,
            name: m.toolName,
            // Gemini's convention: `output` for a result, `error` for a failure.
            response: m.isError === true ? { error: m.content } : { output: m.content },
          },
        },
      ];
    case "assistant":
      return modelParts(m.content, m.toolCalls ?? [], ownReasoning(m, GEMINI_PROVIDER), placeholders);
  }
}

/**
 * A model turn's parts: thoughts, the answer text, the calls, each with the signature it came with.
 * With `placeholders`, a turn whose calls came without any signature (another model made them) gets
 * the documented placeholder on its first call, the one Gemini 3 validates; a turn Gemini signed is
 * sent exactly as received (its later parallel calls legitimately have none).
 */
function modelParts(
  text: string,
  calls: readonly { id: string; name: string; arguments: string }[],
  reasoning: readonly ReasoningPart[],
  placeholders: boolean,
): GeminiPart[] {
  const parts: GeminiPart[] = [];
  let textSignature: string | undefined;
  const callSignatures = new Map<string, string>();
  for (const r of reasoning) {
    if (r.anchor === "text") textSignature = r.signature;
    else if (typeof r.anchor === "object") {
      if (r.signature !== undefined) callSignatures.set(r.anchor.toolCallId, r.signature);
    } else {
      parts.push({
        text: r.text,
        thought: true,
        ...(r.signature !== undefined && { thoughtSignature: r.signature }),
      });
    }
  }
  if (text !== "" || textSignature !== undefined)
    parts.push({ text, ...(textSignature !== undefined && { thoughtSignature: textSignature }) });
  const unsigned = calls.every((call) => !callSignatures.has(call.id));
  for (const [index, call] of calls.entries()) {
    const signature =
      callSignatures.get(call.id) ??
      (placeholders && unsigned && index === 0 ? GEMINI_PLACEHOLDER_SIGNATURE : undefined);
    parts.push({
      functionCall: { id: call.id, name: call.name, args: argsOf(call.arguments) },
      ...(signature !== undefined && { thoughtSignature: signature }),
    });
  }
  return parts;
}

function toImagePart(image: ImagePart): GeminiPart {
  return image.data !== undefined
    ? { inlineData: { mimeType: image.mediaType, data: image.data } }
    : { fileData: { mimeType: image.mediaType, fileUri: image.url ?? "" } };
}

/** A document as `inlineData` (bytes) or `fileData` (URL) with its MIME type; Gemini has no place for a name. */
function toFilePart(file: FilePart): GeminiPart {
  return file.data !== undefined
    ? { inlineData: { mimeType: file.mediaType, data: file.data } }
    : { fileData: { mimeType: file.mediaType, fileUri: file.url ?? "" } };
}

/** Arguments as the object Gemini's `args` must be; text that is not an object is kept under `_raw_arguments`. */
function argsOf(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // Falls through to the raw text.
  }
  return { _raw_arguments: text };
}
