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
 * What a Responses body asks, read back for replays and request diffs: `instructions` and leading
 * system or developer items are the instructions; an assistant message and the function calls
 * after it are one answer; reasoning items are left out. A body continuing a stored response
 * (`previous_response_id`) holds only the turns after it, and is read as such.
 */
export function readResponsesBody(body: Record<string, unknown>): CanonicalRequest {
  const ids = new IdMap();
  const messages: CanonicalMessage[] = [];
  const system: string[] = typeof body.instructions === "string" ? [body.instructions] : [];
  // The answer being read: its text and calls, until an item of another turn.
  let answer: { text: string; calls: [string, string, unknown][] } | undefined;
  const close = () => {
    if (answer) messages.push(assistant(answer.text, answer.calls));
    answer = undefined;
  };
  for (const raw of arrayOf(body.input)) {
    const item = asRecord(raw);
    if (item.type === "reasoning") continue;
    if (item.type === "function_call") {
      answer ??= { text: "", calls: [] };
      answer.calls.push([ids.of(String(item.call_id)), String(item.name), parseArgs(item.arguments)]);
      continue;
    }
    if (item.role === "assistant") {
      close();
      answer = { text: textOf(item.content), calls: [] };
      continue;
    }
    close();
    if (item.type === "function_call_output") {
      messages.push({ role: "tool", toolCallId: ids.of(String(item.call_id)), content: textOf(item.output) });
    } else if (item.role === "system" || item.role === "developer") {
      if (messages.length === 0) system.push(textOf(item.content));
      else pushUser(messages, [textOf(item.content)]);
    } else if (item.role === "user") pushUser(messages, [textOf(item.content)]);
  }
  close();
  const tools = arrayOf(body.tools).map((t) => {
    const r = asRecord(t);
    return { name: String(r.name), description: String(r.description ?? ""), parameters: r.parameters };
  });
  const choice = body.tool_choice;
  const toolChoice: ToolChoice | undefined =
    typeof choice === "string"
      ? (choice as ToolChoice)
      : choice === undefined
        ? undefined
        : { name: String(asRecord(choice).name) };
  return settings(
    { ...(system.length > 0 && { instructions: system.join("\n\n") }), messages, tools },
    toolChoice,
    body.max_output_tokens,
    body.temperature,
  );
}
