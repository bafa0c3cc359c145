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

/** A user turn, or feedback the loop sends the model on its behalf. */
export interface UserMessage {
  role: "user";
  content: string;
}

/** A model turn: text, tool calls, or both. */
export interface AssistantMessage {
  role: "assistant";
  content: string;
  toolCalls?: ToolCall[];
}

/** The result of exactly one tool call, paired by `toolCallId`. */
export interface ToolMessage {
  role: "tool";
  toolCallId: string;
  toolName: string;
  content: string;
  /** True when the call failed, was refused, timed out, or was not executed. */
  isError?: boolean;
}

/** Any message of a transcript. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** Tool calls of an assistant message, or an empty list. */
export function toolCallsOf(message: Message): ToolCall[] {
  return message.role === "assistant" ? (message.toolCalls ?? []) : [];
}

/**
 * The ids of tool calls in `messages` that have no result yet, in the order they were requested.
 * Used to keep invariant 1 on every exit path.
 */
export function openToolCalls(messages: readonly Message[]): ToolCall[] {
  const answered = new Set<string>();
  for (const m of messages) if (m.role === "tool") answered.add(m.toolCallId);
  const open: ToolCall[] = [];
  for (const m of messages) for (const call of toolCallsOf(m)) if (!answered.has(call.id)) open.push(call);
  return open;
}
