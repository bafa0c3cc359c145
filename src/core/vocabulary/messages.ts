/**
 * The transcript: plain JSON objects, discriminated by `role`, that survive
 * `JSON.stringify`/`JSON.parse` unchanged and can be passed back as `history`.
 */

/** One tool call requested by the model. `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  name: string;
  /** Kept as the model sent it (it may be invalid JSON, which becomes feedback, not a crash). */
  arguments: string;
}

/** The instructions (system prompt); first in a transcript when present. */
export interface SystemMessage {
  role: "system";
  content: string;
}

/**
 * An image in a user message or a tool result: base64 `data` or a `url` (http(s)), with its MIME
 * type. Providers map it to their own form; traces keep a hash and size instead of the bytes.
 */
export interface ImagePart {
  type: "image";
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mediaType: string;
  /** The bytes, base64-encoded (no `data:` prefix). */
  data?: string;
  /** Where the provider fetches it; used when `data` is unset. */
  url?: string;
}

/**
 * A document (a PDF) in a user message or a tool result: base64 `data` or a `url` (http(s)), with
 * its MIME type and, optionally, the name the model is shown. Providers map it to their own form
 * (Anthropic `document`, OpenAI `file` / `input_file`, Gemini `inlineData` / `fileData`); traces
 * keep a hash and size instead of the bytes, as for images.
 */
export interface FilePart {
  type: "file";
  /** `application/pdf` (the one document type every provider reads). */
  mediaType: string;
  /** The bytes, base64-encoded (no `data:` prefix). */
  data?: string;
  /** Where the provider fetches it; used when `data` is unset. */
  url?: string;
  /** The file's name, shown to the model where the provider has a place for it. */
  filename?: string;
}

/** A user turn, or feedback the loop sends the model on its behalf. */
export interface UserMessage {
  role: "user";
  content: string;
  /** Images shown with the text. */
  images?: ImagePart[];
  /** Documents (PDFs) sent with the text, after the images. */
  files?: FilePart[];
}

/**
 * The model's reasoning (thinking) in one assistant turn: readable text where the provider gives
 * it, an opaque payload where it does not. Providers need it back unchanged on the next turn to
 * keep their chain of thought across tool calls (Anthropic and Gemini reject a tool turn without
 * it), so it is kept exactly as received, and only the provider that produced it is sent it.
 */
export interface ReasoningPart {
  type: "reasoning";
  /**
   * The wire format that produced it: `anthropic`, `openai-responses`, `google`, or an
   * OpenAI-compatible provider's label (`deepseek`, `openrouter`). Other providers drop the part.
   */
  provider: string;
  /** The thinking or its summary as text; `""` when the provider gave none. */
  text: string;
  /**
   * Opaque bytes the provider needs back exactly: Anthropic's `signature` (or a
   * `redacted_thinking` block's `data`), OpenAI's `encrypted_content`, Gemini's `thoughtSignature`.
   */
  signature?: string;
  /** Anthropic `redacted_thinking`: the text is withheld and `signature` holds its `data`. */
  redacted?: boolean;
  /** The provider's id of the reasoning item (OpenAI Responses `rs_…`); parts sharing one are one item. */
  id?: string;
  /**
   * Gemini: the part the signature rode on, so it goes back on the same part: the answer text,
   * or the function call with this id. Unset: the signature belongs to the thought itself.
   */
  anchor?: "text" | { toolCallId: string };
}

/** A model turn: text, tool calls, or both, and the reasoning that led to them. */
export interface AssistantMessage {
  role: "assistant";
  content: string;
  toolCalls?: ToolCall[];
  /** The model's reasoning in this turn, in the order the provider produced it. */
  reasoning?: ReasoningPart[];
}

/** The result of exactly one tool call, paired by `toolCallId`. */
export interface ToolMessage {
  role: "tool";
  toolCallId: string;
  toolName: string;
  content: string;
  /** True when the call failed, was refused, timed out, or was not executed. */
  isError?: boolean;
  /** Images the tool returned (`content` then describes them in words). */
  images?: ImagePart[];
  /** Documents (PDFs) the tool returned (`content` names each one). */
  files?: FilePart[];
}

/** Any message of a transcript. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Why the model stopped generating. */
export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "error" | "other";

/**
 * The last user message's text in `messages` ("" when there is none): what a run that continues a
 * conversation without a new message (`agent.run(null, …)`) answers, for recall, guardrails,
 * reflection, `run_start` and the stored run.
 */
export function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "user") return message.content;
  }
  return "";
}
