import { FenceContext, fenceFor } from "../../core/prompt-fence.js";
import type { Message, ToolMessage } from "../../core/vocabulary/messages.js";
import type { ToolChoice, ToolSpec } from "../../models/model.js";
import { formatToolCall } from "./extract.js";

/** The tool name of a call the model wrote but that could not be read; its result is feedback. */
export const INVALID_PROMPTED_CALL = "invalid_tool_call";

/**
 * The system prompt of a prompt-mode request: the agent's instructions, then each tool's name,
 * description and JSON Schema, then how to write a call and how to give the final answer.
 */
export function promptedSystemPrompt(
  instructions: string | undefined,
  tools: readonly ToolSpec[],
  choice: ToolChoice | undefined,
): string | undefined {
  if (tools.length === 0 || choice === "none") {
    const none = tools.length > 0 ? "Do not call any tool now; answer in plain text." : undefined;
    return [instructions, none].filter(Boolean).join("\n\n") || undefined;
  }
  const example = tools[0] as ToolSpec;
  const list = tools
    .map(
      (t) =>
        // A description is a server's text (MCP): a JSON string, so it cannot open a section of its own.
        `## ${t.name}\nDescription: ${JSON.stringify(t.description || "(no description)")}\nArguments (JSON Schema): ${JSON.stringify(t.parameters)}`,
    )
    .join("\n\n");
  const rule =
    choice === "required"
      ? "You must call a tool now; a plain-text answer is not accepted."
      : typeof choice === "object"
        ? `You must call the tool "${choice.name}" now.`
        : "When you need no tool, answer in plain text, without any tool-call JSON: that answer is final.";
  return [
    instructions,
    `# Tools\nYou can call these tools. You have no other way to call them than the format below.\n\n${list}`,
    "# How to call a tool\nWrite the call as one JSON object in a ```json code block, with the tool's name and its arguments:\n" +
      `\`\`\`json\n${formatToolCall(example.name, "{}")}\n\`\`\`\n` +
      "To call several tools at once, write one code block per call. After your calls, stop: the results " +
      "come back in the next message, each marked with its call id.\n" +
      rule,
  ]
    .filter(Boolean)
    .join("\n\n");
}

/**
 * The transcript for a model that has no tool messages: each assistant turn with its calls written
 * back as the JSON it was asked for, and each turn's tool results as one user message it can read.
 */
export function renderTranscript(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  const invalid = new Map<string, string>();
  // Each turn's fence also depends on the transcript before it, so a page fetched in one turn
  // cannot predict the marker of another; earlier turns keep their text (prompt caches still hit).
  const before = new FenceContext();
  let results: ToolMessage[] = [];
  let written = 0;
  const flush = () => {
    if (results.length === 0) return;
    for (const m of out.slice(written)) before.add(JSON.stringify(m));
    written = out.length;
    const turn: Message = { role: "user", content: renderResults(results, invalid, before.digest()) };
    // The tools' images and files ride on the user message that carries the results, so the
    // wrapped model still sees them (its provider maps a user message's parts).
    const images = results.flatMap((r) => r.images ?? []);
    const files = results.flatMap((r) => r.files ?? []);
    if (images.length > 0) turn.images = images;
    if (files.length > 0) turn.files = files;
    out.push(turn);
    results = [];
  };
  for (const message of messages) {
    if (message.role === "tool") {
      results.push(message);
      continue;
    }
    flush();
    if (message.role !== "assistant" || !message.toolCalls?.length) {
      out.push(message.role === "assistant" ? { role: "assistant", content: message.content } : message);
      continue;
    }
    const parts = message.content.trim() ? [message.content.trim()] : [];
    for (const call of message.toolCalls) {
      if (call.name === INVALID_PROMPTED_CALL) {
        const { raw, reason } = invalidCallOf(call.arguments);
        invalid.set(call.id, reason);
        parts.push(raw);
      } else parts.push(`\`\`\`json\n${formatToolCall(call.name, call.arguments)}\n\`\`\``);
    }
    out.push({ role: "assistant", content: parts.join("\n\n") });
  }
  flush();
  return out;
}

/** The arguments of an `invalid_tool_call`: what the model wrote and why it could not be read. */
export function invalidCallArguments(raw: string, reason: string): string {
  return JSON.stringify({ raw, reason });
}

function invalidCallOf(args: string): { raw: string; reason: string } {
  try {
    const parsed = JSON.parse(args) as { raw?: unknown; reason?: unknown };
    return {
      raw: String(parsed.raw ?? ""),
      reason: String(parsed.reason || "it is not in the expected format"),
    };
  } catch {
    return { raw: args, reason: "it is not in the expected format" };
  }
}

function renderResults(
  results: readonly ToolMessage[],
  invalid: Map<string, string>,
  context: string,
): string {
  // Each result is fenced (core/prompt-fence.ts): a fetched page that writes its own
  // "Result of check_balance (call …):" stays inside its fence, so one call never shows two results.
  const fence = fenceFor(
    "result",
    results.map((r) => r.content),
    context,
  );
  const parts = results.map((r) => {
    const reason = invalid.get(r.toolCallId);
    // The environment only knows "unknown tool"; the model needs to hear why its text was no call.
    if (reason !== undefined) {
      return `Your tool call could not be read: ${reason}. Write each call as one JSON object with "tool" and "arguments" in a \`\`\`json code block.`;
    }
    const label = r.isError ? "Error from" : "Result of";
    return `${label} ${r.toolName} (call ${r.toolCallId}):\n${fence.wrap(r.content)}`;
  });
  return `Tool results. ${fence.rule}\n\n${parts.join("\n\n")}`;
}
