import type { ModelResponse } from "../models/model.js";
import type { AssistantMessage, Message, ToolCall } from "../vocabulary/messages.js";

/** The assistant message for a response; empty or duplicate call ids are replaced so pairing holds. */
export function toAssistantMessage(
  response: ModelResponse,
  step: number,
  transcript: readonly Message[],
): AssistantMessage {
  const message = callsMessage(response, step, transcript);
  // Kept in the transcript so the next request can give it back to the provider that made it.
  if (response.reasoning !== undefined && response.reasoning.length > 0)
    message.reasoning = response.reasoning;
  return message;
}

function callsMessage(
  response: ModelResponse,
  step: number,
  transcript: readonly Message[],
): AssistantMessage {
  if (response.toolCalls.length === 0) return { role: "assistant", content: response.text };
  const only = response.toolCalls.length === 1 ? response.toolCalls[0] : undefined;
  // The common turn, one call with an id: nothing it could collide with in its own message.
  if (only?.id) {
    const call: ToolCall = { id: only.id, name: only.name, arguments: only.arguments };
    return { role: "assistant", content: response.text, toolCalls: [call] };
  }
  const seen = new Set<string>();
  let earlier: Set<string> | undefined;
  // Only a missing or repeated id needs the transcript's ids (a generated one must be new to it).
  const taken = (id: string) => {
    earlier ??= idsIn(transcript);
    return seen.has(id) || earlier.has(id);
  };
  const toolCalls: ToolCall[] = response.toolCalls.map((call, i) => {
    let id = call.id;
    if (!id || seen.has(id)) {
      // A generated id must not collide with one the model sent, nor with one already in the
      // transcript (an earlier run this one continues generated ids too).
      id = "";
      for (let n = i; !id || taken(id); n++) id = `call_${step}_${n}`;
    }
    seen.add(id);
    return { id, name: call.name, arguments: call.arguments };
  });
  return { role: "assistant", content: response.text, toolCalls };
}

/** Ids of every tool call already in the transcript. */
function idsIn(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) if (m.role === "assistant") for (const c of m.toolCalls ?? []) ids.add(c.id);
  return ids;
}

/** The transcript's latest assistant message: the turn a checkpoint or a resume is about. */
export function lastAssistant(messages: readonly Message[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role === "assistant") return m;
  }
  return undefined;
}
