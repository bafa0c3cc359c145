/**
 * Tokens before sending: a documented estimate of a request's input tokens, the provider's own
 * count where the model has a count endpoint, and the check that refuses a request known not to
 * fit the model's context window before a byte of it is sent.
 */
import { GlassloopError } from "../core/errors.js";
import type { Model, ModelRequest } from "./model.js";
import { encodingFor, loadEncoder } from "./tokenizer.js";

/** Characters per token of the estimate: about right for English prose and JSON with GPT, Claude and Gemini tokenizers. */
export const CHARS_PER_TOKEN = 4;
/** Tokens the estimate adds per message (role and framing) and per image or document part. */
export const TOKENS_PER_MESSAGE = 4;
/** Tokens the estimate charges per image or document part (a typical 1-megapixel image). */
export const TOKENS_PER_ATTACHMENT = 1_600;

/**
 * The estimated input tokens of `request`: its text (instructions, messages, tool calls and
 * results, tool definitions) at `CHARS_PER_TOKEN` characters a token, plus a few per message and
 * a fixed charge per attachment (their base64 bytes are not text to the model). An estimate: use
 * `countTokens` where the provider counts.
 */
export function estimateRequestTokens(request: ModelRequest): number {
  let chars = request.instructions?.length ?? 0;
  for (const m of request.messages) {
    chars += m.content.length;
    if (m.role === "assistant")
      for (const call of m.toolCalls ?? []) chars += call.name.length + call.arguments.length;
  }
  for (const t of request.tools) chars += t.name.length + t.description.length + schemaLength(t.parameters);
  return Math.ceil(chars / CHARS_PER_TOKEN) + framingTokens(request);
}

// A tool's schema is one object for the agent's life, and every call is estimated: its JSON's
// length is measured once (this was the estimate's whole cost, a stringify per tool per call).
const schemaLengths = new WeakMap<object, number>();
function schemaLength(schema: ModelRequest["tools"][number]["parameters"]): number {
  let length = schemaLengths.get(schema);
  if (length === undefined) {
    length = JSON.stringify(schema).length;
    schemaLengths.set(schema, length);
  }
  return length;
}

/** The request's text as the model reads it: instructions, messages, tool calls, tool definitions. */
function* textsOf(request: ModelRequest): Generator<string> {
  if (request.instructions) yield request.instructions;
  for (const m of request.messages) {
    yield m.content;
    if (m.role === "assistant")
      for (const call of m.toolCalls ?? []) {
        yield call.name;
        yield call.arguments;
      }
  }
  for (const t of request.tools) {
    yield t.name;
    yield t.description;
    yield JSON.stringify(t.parameters);
  }
}

/** What is not text: a few tokens per message, a fixed charge per image or document. */
function framingTokens(request: ModelRequest): number {
  let extra = 0;
  for (const m of request.messages) {
    extra += TOKENS_PER_MESSAGE;
    if (m.role === "user" || m.role === "tool")
      extra += ((m.images?.length ?? 0) + (m.files?.length ?? 0)) * TOKENS_PER_ATTACHMENT;
  }
  return extra;
}

/**
 * How a count was made: by the provider's count endpoint, by OpenAI's published tokenizer
 * (o200k_base or cl100k_base, for OpenAI models), or estimated here.
 */
export interface TokenCount {
  tokens: number;
  source: "provider" | "tokenizer" | "estimate";
}

/**
 * The input tokens of `request` for `model`: the provider's own count when the model has a count
 * endpoint and `useProvider` allows the extra call (the default: Anthropic, Gemini, Vertex,
 * Bedrock); else OpenAI's tokenizer for OpenAI-family models (the text tokenized exactly, the
 * message framing and attachments as the estimate charges them); else `estimateRequestTokens`.
 */
export async function countTokens(
  model: Model,
  request: ModelRequest,
  options: { useProvider?: boolean } = {},
): Promise<TokenCount> {
  if (options.useProvider !== false && model.countTokens)
    return { tokens: await model.countTokens(request), source: "provider" };
  const encoding = encodingFor(model.id);
  if (encoding !== "estimate") {
    const encode = await loadEncoder(encoding);
    let tokens = framingTokens(request);
    for (const text of textsOf(request)) if (text) tokens += encode(text);
    return { tokens, source: "tokenizer" };
  }
  return { tokens: estimateRequestTokens(request), source: "estimate" };
}

/** A request that cannot fit the model's context window, found before it was sent. */
export class ContextWindowError extends GlassloopError {
  constructor(
    readonly modelId: string,
    /** Estimated (or counted) input tokens plus the output tokens asked for. */
    readonly tokens: number,
    readonly contextWindow: number,
  ) {
    super(
      "context_window_exceeded",
      `The request to ${modelId} needs about ${tokens} tokens but its context window is ${contextWindow}; shorten the history (a memory strategy such as SummaryMemory or WindowMemory), or lower maxOutputTokens`,
    );
  }
}

/**
 * Throws `ContextWindowError` when `request` (its estimated input plus `maxOutputTokens`) exceeds
 * `model.contextWindow`; nothing happens for a model whose window is unknown.
 */
export function checkContextWindow(model: Pick<Model, "id" | "contextWindow">, request: ModelRequest): void {
  const window = model.contextWindow;
  if (window === undefined) return;
  const tokens = estimateRequestTokens(request) + (request.maxOutputTokens ?? 0);
  if (tokens > window) throw new ContextWindowError(model.id, tokens, window);
}
