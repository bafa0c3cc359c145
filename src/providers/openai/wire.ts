/**
 * OpenAI Chat Completions as it appears on the wire (only the parts glassloop reads or writes).
 * Field names are OpenAI's, snake_case included, so the types document the bytes.
 */

/** A tool call inside an assistant message. */
export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * A part of a user message with images or files: text, an image by URL (a `data:` URL for bytes),
 * or a file's bytes as a `data:` URL with its name.
 */
export type ChatUserPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } }
  | { type: "file"; file: { filename: string; file_data: string } };

/** One message of the request's `messages`. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatUserPart[] }
  | { role: "assistant"; content?: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** A tool as OpenAI describes it. */
export interface ChatTool {
  type: "function";
  function: { name: string; description: string; parameters: { [key: string]: unknown } };
}

/** OpenAI's tool choice. */
export type ChatToolChoice = "auto" | "required" | "none" | { type: "function"; function: { name: string } };

/** The JSON body of `POST /chat/completions`. */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: ChatToolChoice;
  parallel_tool_calls?: boolean;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  stream?: true;
  stream_options?: { include_usage: true };
}

/** Token counts as OpenAI-compatible servers report them (DeepSeek adds its cache fields). */
export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
  prompt_cache_hit_tokens?: number;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
  total_tokens?: number;
}

/** A tool call in a response; some servers send `arguments` as an object, or no id. */
export interface ChatResponseToolCall {
  index?: number;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: unknown };
}

/** The non-streaming response body. */
export interface ChatCompletion {
  id?: string;
  model?: string;
  choices?: {
    index?: number;
    message?: {
      role?: string;
      content?: string | null;
      refusal?: string | null;
      tool_calls?: ChatResponseToolCall[] | null;
      /** DeepSeek, vLLM, Ollama: the model's reasoning. */
      reasoning_content?: string | null;
      /** OpenRouter: the model's reasoning. */
      reasoning?: string | null;
    };
    finish_reason?: string | null;
  }[];
  usage?: ChatUsage | null;
}

/** One streamed chunk (`data:` payload). */
export interface ChatCompletionChunk {
  id?: string;
  model?: string;
  choices?: {
    index?: number;
    delta?: {
      role?: string;
      content?: string | null;
      refusal?: string | null;
      tool_calls?: ChatResponseToolCall[] | null;
      /** DeepSeek, vLLM, Ollama: the model's reasoning. */
      reasoning_content?: string | null;
      /** OpenRouter: the model's reasoning. */
      reasoning?: string | null;
    };
    finish_reason?: string | null;
  }[];
  usage?: ChatUsage | null;
  /** Some servers report a failure inside the stream. */
  error?: unknown;
}
