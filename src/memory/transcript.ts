/**
 * Questions about a transcript that callers and the session stores ask of history read back:
 * functions over the vocabulary's `Message`, which itself holds only types.
 */
import type { Message, ToolCall } from "../core/vocabulary/messages.js";

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
