/**
 * Chat Completions answers in OpenAI's real wire shapes, built from a short description, for
 * driving glassloop (the CLI, the demo recorder) through the OpenAI provider against the wire server.
 */
import { sseData, type WireReply } from "./wire-server.js";

/** One assistant turn: text, tool calls (arguments as JSON text), token counts. */
export interface ChatReply {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
  usage?: { prompt_tokens: number; completion_tokens: number };
  model?: string;
  /** Delay before the answer starts (a slow model, for Ctrl-C tests). */
  delayMs?: number;
}

function message(reply: ChatReply) {
  const toolCalls = reply.toolCalls ?? [];
  return {
    role: "assistant",
    content: reply.text ?? null,
    ...(toolCalls.length > 0 && {
      tool_calls: toolCalls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      })),
    }),
  };
}

const finishOf = (reply: ChatReply) => ((reply.toolCalls ?? []).length > 0 ? "tool_calls" : "stop");

/** The JSON body of the server's request number `index`; fails the test when there is none. */
export function sentBody<
  T = { messages: { role: string; content?: string | null; tool_call_id?: string }[] },
>(requests: readonly { body: unknown }[], index: number): T {
  const request = requests[index];
  if (!request) throw new Error(`the server got ${requests.length} requests, not ${index + 1}`);
  return request.body as T;
}

/** A non-streaming `chat.completion` body. */
export function chatJson(reply: ChatReply, index = 0): WireReply {
  return {
    ...(reply.delayMs !== undefined && { delayMs: reply.delayMs }),
    json: {
      id: `chatcmpl-test-${index}`,
      object: "chat.completion",
      created: 1_700_000_000,
      model: reply.model ?? "gpt-4o-mini",
      choices: [{ index: 0, message: message(reply), logprobs: null, finish_reason: finishOf(reply) }],
      ...(reply.usage && {
        usage: { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens },
      }),
    },
  };
}

/** A streamed answer: a role chunk, text in word-sized pieces, tool calls by index, finish, usage. */
export function chatSse(reply: ChatReply, index = 0): WireReply {
  const base = {
    id: `chatcmpl-test-${index}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: reply.model ?? "gpt-4o-mini",
  };
  const chunk = (delta: object, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks: object[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of reply.text?.match(/\S+\s*|\s+/g) ?? []) chunks.push(chunk({ content: piece }));
  for (const [i, c] of (reply.toolCalls ?? []).entries()) {
    chunks.push(
      chunk({
        tool_calls: [{ index: i, id: c.id, type: "function", function: { name: c.name, arguments: "" } }],
      }),
    );
    chunks.push(chunk({ tool_calls: [{ index: i, function: { arguments: c.arguments } }] }));
  }
  chunks.push(chunk({}, finishOf(reply)));
  if (reply.usage) {
    chunks.push({
      ...base,
      choices: [],
      usage: { ...reply.usage, total_tokens: reply.usage.prompt_tokens + reply.usage.completion_tokens },
    });
  }
  return { ...(reply.delayMs !== undefined && { delayMs: reply.delayMs }), sse: sseData(chunks) };
}
