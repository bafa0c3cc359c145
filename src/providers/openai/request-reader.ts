import type { ToolChoice } from "../../models/model.js";
import {
  arrayOf,
  asRecord,
  assistant,
  type CanonicalMessage,
  type CanonicalRequest,
  IdMap,
  parseArgs,
  pushUser,
  settings,
  textOf,
} from "../replay/canonical-request.js";

/**
 * What a Chat Completions body asks, read back for replays and request diffs: system and developer
 * messages before the first turn are the instructions, later ones a user turn.
 */
export function readChatBody(body: Record<string, unknown>): CanonicalRequest {
  const ids = new IdMap();
  const messages: CanonicalMessage[] = [];
  const system: string[] = [];
  for (const raw of arrayOf(body.messages)) {
    const m = asRecord(raw);
    const text = textOf(m.content);
    if (m.role === "system" || m.role === "developer") {
      if (messages.length === 0) system.push(text);
      else pushUser(messages, [text]);
    } else if (m.role === "user") pushUser(messages, [text]);
    else if (m.role === "tool")
      messages.push({ role: "tool", toolCallId: ids.of(String(m.tool_call_id)), content: text });
    else if (m.role === "assistant") {
      const calls = arrayOf(m.tool_calls).map((c) => {
        const call = asRecord(c);
        const fn = asRecord(call.function);
        return [ids.of(String(call.id ?? "")), String(fn.name), parseArgs(fn.arguments)] as const;
      });
      messages.push(assistant(text, calls));
    }
  }
  const tools = arrayOf(body.tools).map((t) => {
    const fn = asRecord(asRecord(t).function);
    return { name: String(fn.name), description: String(fn.description ?? ""), parameters: fn.parameters };
  });
  const choice = body.tool_choice;
  const toolChoice: ToolChoice | undefined =
    typeof choice === "string"
      ? (choice as ToolChoice)
      : choice === undefined
        ? undefined
        : { name: String(asRecord(asRecord(choice).function).name) };
  return settings(
    { ...(system.length > 0 && { instructions: system.join("\n\n") }), messages, tools },
    toolChoice,
    body.max_completion_tokens ?? body.max_tokens,
    body.temperature,
  );
}
