/**
 * The Anthropic Messages API as it appears on the wire (only the parts glassloop reads or writes).
 * Field names are Anthropic's, snake_case included, so the types document the bytes.
 */

/** A text block, in a request or a response. */
export interface AnthropicTextBlock {
  type: "text";
  text: string;
}

/** A tool call the model made; `input` is already parsed JSON. */
export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** Extended thinking, signed by Anthropic; sent back unchanged with the tool results. */
export interface AnthropicThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

/** Thinking Anthropic's safety systems withheld: only the encrypted `data`, sent back unchanged. */
export interface AnthropicRedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

/** A prompt-cache breakpoint: everything up to and including the marked block is cached. */
export interface AnthropicCacheControl {
  type: "ephemeral";
}

/** An image, by its bytes or a URL. */
export interface AnthropicImageBlock {
  type: "image";
  source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
}

/** A document (a PDF), by its bytes or a URL, with an optional title the model is shown. */
export interface AnthropicDocumentBlock {
  type: "document";
  source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
  title?: string;
}

/** The result of one tool call, sent back in a user message; text, or text with images and documents. */
export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | (AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock)[];
  is_error?: boolean;
}

/** A block glassloop sends; any may carry a cache breakpoint. */
export type AnthropicRequestBlock = (
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
) & { cache_control?: AnthropicCacheControl };

/** One message of the request's `messages` (Anthropic has no system or tool role). */
export interface AnthropicMessageParam {
  role: "user" | "assistant";
  content: string | AnthropicRequestBlock[];
}

/** A tool as Anthropic describes it. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { [key: string]: unknown };
  cache_control?: AnthropicCacheControl;
}

/** Anthropic's tool choice; `any` is "some tool must be called". */
export type AnthropicToolChoice =
  | { type: "auto" }
  | { type: "any" }
  | { type: "none" }
  | { type: "tool"; name: string };

/** The JSON body of `POST /v1/messages`. */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  /** A string, or text blocks when the system prompt carries a cache breakpoint. */
  system?: string | (AnthropicTextBlock & { cache_control?: AnthropicCacheControl })[];
  messages: AnthropicMessageParam[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  temperature?: number;
  /** Extended thinking with a token budget (`max_tokens` must exceed it). */
  thinking?: { type: "enabled"; budget_tokens: number };
  stream?: boolean;
}

/** Token counts as Anthropic reports them; `input_tokens` excludes the cache reads and writes. */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** A response content block; kinds glassloop does not use (server tools) pass through. */
export type AnthropicResponseBlock =
  | AnthropicTextBlock
  | AnthropicToolUseBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock
  | { type: string; [key: string]: unknown };

/** The non-streaming response body (also the `message` of a stream's `message_start`). */
export interface AnthropicMessage {
  id?: string;
  type?: "message";
  role?: "assistant";
  model?: string;
  content: AnthropicResponseBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  usage?: AnthropicUsage;
}

/** The body of an error response, and of a stream's `error` event. */
export interface AnthropicErrorBody {
  type: "error";
  error: { type: string; message: string };
}
