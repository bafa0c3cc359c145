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

/**
 * What a Converse body asks, read back for replays and request diffs: `system` blocks are the
 * instructions, a user message's `toolResult` blocks are results and its `text` blocks a user turn,
 * an assistant message's `text` and `toolUse` blocks its answer (reasoning, images, documents and
 * cache points are not compared).
 */
export function readConverseBody(body: Record<string, unknown>): CanonicalRequest {
  const ids = new IdMap();
  const messages: CanonicalMessage[] = [];
  for (const raw of arrayOf(body.messages)) {
    const m = asRecord(raw);
    const blocks = arrayOf(m.content).map(asRecord);
    if (m.role === "assistant") {
      const calls = blocks
        .filter((b) => "toolUse" in b)
        .map((b) => asRecord(b.toolUse))
        .map((use) => [ids.of(String(use.toolUseId)), String(use.name), use.input ?? {}] as const);
      messages.push(assistant(textOf(blocks.filter((b) => typeof b.text === "string")), calls));
      continue;
    }
    for (const b of blocks) {
      if ("toolResult" in b) {
        const result = asRecord(b.toolResult);
        const texts = arrayOf(result.content).filter((c) => typeof asRecord(c).text === "string");
        messages.push({ role: "tool", toolCallId: ids.of(String(result.toolUseId)), content: textOf(texts) });
      } else if (typeof b.text === "string") pushUser(messages, [b.text]);
    }
  }
  const config = asRecord(body.toolConfig);
  const tools = arrayOf(config.tools)
    .filter((t) => "toolSpec" in asRecord(t))
    .map((t) => {
      const spec = asRecord(asRecord(t).toolSpec);
      return {
        name: String(spec.name),
        description: String(spec.description ?? ""),
        parameters: asRecord(spec.inputSchema).json,
      };
    });
  const choice = config.toolChoice === undefined ? undefined : asRecord(config.toolChoice);
  // Converse has no "auto" or "none" of its own: no choice reads as none asked for.
  const toolChoice: ToolChoice | undefined =
    choice === undefined
      ? undefined
      : "any" in choice
        ? "required"
        : "tool" in choice
          ? { name: String(asRecord(choice.tool).name) }
          : "auto";
  const system = arrayOf(body.system).filter((b) => typeof asRecord(b).text === "string");
  const inference = asRecord(body.inferenceConfig);
  return settings(
    { ...(system.length > 0 && { instructions: textOf(system) }), messages, tools },
    toolChoice,
    inference.maxTokens,
    inference.temperature,
  );
}
