import type { ToolChoice } from "../../models/model.js";
import {
  arrayOf,
  asRecord,
  assistant,
  type CanonicalMessage,
  type CanonicalRequest,
  IdMap,
  pushUser,
  settings,
  textOf,
} from "../replay/canonical-request.js";

/** What a Messages body asks, read back for replays and request diffs. */
export function readAnthropicBody(body: Record<string, unknown>): CanonicalRequest {
  const ids = new IdMap();
  const messages: CanonicalMessage[] = [];
  for (const raw of arrayOf(body.messages)) {
    const m = asRecord(raw);
    const blocks =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : arrayOf(m.content).map(asRecord);
    if (m.role === "assistant") {
      const text = blocks
        .filter((b) => b.type === "text")
        .map((b) => String(b.text))
        .join("");
      const calls = blocks
        .filter((b) => b.type === "tool_use")
        .map((b) => [ids.of(String(b.id)), String(b.name), b.input ?? {}] as const);
      messages.push(assistant(text, calls));
      continue;
    }
    for (const b of blocks) {
      if (b.type === "tool_result") {
        messages.push({
          role: "tool",
          toolCallId: ids.of(String(b.tool_use_id)),
          content: textOf(b.content),
        });
      } else if (b.type === "text") pushUser(messages, [String(b.text)]);
    }
  }
  const tools = arrayOf(body.tools).map((t) => {
    const r = asRecord(t);
    return { name: String(r.name), description: String(r.description ?? ""), parameters: r.input_schema };
  });
  const choice = body.tool_choice === undefined ? undefined : asRecord(body.tool_choice);
  const toolChoice: ToolChoice | undefined =
    choice === undefined
      ? undefined
      : choice.type === "any"
        ? "required"
        : choice.type === "tool"
          ? { name: String(choice.name) }
          : (choice.type as ToolChoice);
  const system =
    typeof body.system === "string"
      ? body.system
      : body.system === undefined
        ? undefined
        : textOf(body.system);
  // Anthropic requires max_tokens, so the provider fills in a default the agent never asked for:
  // it is not compared.
  return settings(
    { ...(system !== undefined && { instructions: system }), messages, tools },
    toolChoice,
    undefined,
    body.temperature,
  );
}
