/**
 * The OpenAI Responses API (`POST /v1/responses`) as it appears on the wire, only the parts
 * glassloop reads or writes. Field names are OpenAI's, so the types document the bytes.
 */

/** The reasoning parts' provider label for this wire format. */
export const RESPONSES_PROVIDER = "openai-responses";

/** A reasoning item: summaries as text, the chain itself as `encrypted_content` when asked for. */
export interface ResponsesReasoningItem {
  type: "reasoning";
  id?: string;
  summary: { type: "summary_text"; text: string }[];
  encrypted_content?: string | null;
}

/** A tool call the model made. `call_id` pairs it with its output; `id` is the item's own id. */
export interface ResponsesFunctionCall {
  type: "function_call";
  id?: string;
  call_id: string;
  name: string;
  arguments: string;
  status?: string;
}

/** Content of a user message with images or files. */
export type ResponsesInputPart =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: "auto" }
  | { type: "input_file"; filename: string; file_data: string }
  | { type: "input_file"; file_url: string };

/** One item of the request's `input`. */
export type ResponsesInputItem =
  | { role: "user"; content: string | ResponsesInputPart[] }
  | { role: "system" | "developer"; content: string }
  | { role: "assistant"; content: string }
  | ResponsesReasoningItem
  | ResponsesFunctionCall
  | { type: "function_call_output"; call_id: string; output: string };

/** A function tool; `strict: false` because glassloop's schemas need not be strict-compatible. */
export interface ResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: { [key: string]: unknown };
  strict: boolean;
}

/** The request body. */
export interface ResponsesRequestBody {
  model: string;
  instructions?: string;
  input: ResponsesInputItem[];
  tools?: ResponsesTool[];
  tool_choice?: "auto" | "required" | "none" | { type: "function"; name: string };
  parallel_tool_calls?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  reasoning?: { effort?: string; summary?: string };
  include?: string[];
  store?: boolean;
  previous_response_id?: string;
  stream?: boolean;
}

/** Usage as the Responses API reports it; reasoning tokens are part of `output_tokens`. */
export interface ResponsesUsage {
  input_tokens?: number;
  input_tokens_details?: { cached_tokens?: number } | null;
  output_tokens?: number;
  output_tokens_details?: { reasoning_tokens?: number } | null;
}

/** An output item of a response. */
export type ResponsesOutputItem =
  | {
      type: "message";
      id?: string;
      role?: string;
      content?: { type: string; text?: string; refusal?: string }[];
    }
  | ResponsesReasoningItem
  | ResponsesFunctionCall
  | { type: string; [key: string]: unknown };

/** A response body (also the `response` of the stream's lifecycle events). */
export interface ResponsesResponse {
  id?: string;
  model?: string;
  status?: string;
  error?: { code?: string; message?: string } | null;
  incomplete_details?: { reason?: string } | null;
  output?: ResponsesOutputItem[];
  usage?: ResponsesUsage | null;
}
