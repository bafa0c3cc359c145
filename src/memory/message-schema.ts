import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import { fileProblem } from "../core/files.js";
import { once } from "../core/once.js";
import type { FilePart, Message } from "../core/vocabulary/messages.js";

/**
 * The zod schemas of a transcript, built on first use: a program that never passes history in
 * never builds them (they were a fifth of glassloop's heap after import, and of its import time).
 */
export const transcriptSchemas = once(buildSchemas);

function buildSchemas() {
  const toolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
  const image = z
    .object({
      type: z.literal("image"),
      mediaType: z.string(),
      data: z.string().optional(),
      url: z.string().optional(),
    })
    .refine((i) => i.data !== undefined || i.url !== undefined, "an image needs data or a url");
  // A file is checked in full here (type, size, base64, PDF header): history is read once per run,
  // and a bad document in it is the caller's to fix before anything is sent.
  const file = z
    .object({
      type: z.literal("file"),
      mediaType: z.string(),
      data: z.string().optional(),
      url: z.string().optional(),
      filename: z.string().optional(),
    })
    .superRefine((f, ctx) => {
      const problem = fileProblem(f as FilePart);
      if (problem) ctx.addIssue({ code: "custom", message: `${problem}` });
    });
  const reasoning = z.object({
    type: z.literal("reasoning"),
    provider: z.string(),
    text: z.string(),
    signature: z.string().optional(),
    redacted: z.boolean().optional(),
    id: z.string().optional(),
    anchor: z.union([z.literal("text"), z.object({ toolCallId: z.string() })]).optional(),
  });

  const message = z.discriminatedUnion("role", [
    z.object({ role: z.literal("system"), content: z.string() }),
    z.object({
      role: z.literal("user"),
      content: z.string(),
      images: z.array(image).optional(),
      files: z.array(file).optional(),
    }),
    z.object({
      role: z.literal("assistant"),
      content: z.string(),
      toolCalls: z.array(toolCall).optional(),
      reasoning: z.array(reasoning).optional(),
    }),
    z.object({
      role: z.literal("tool"),
      toolCallId: z.string(),
      toolName: z.string(),
      content: z.string(),
      isError: z.boolean().optional(),
      images: z.array(image).optional(),
      files: z.array(file).optional(),
    }),
  ]);
  return { message, history: z.array(message) };
}

/** Validates a transcript passed in by a caller; a malformed one is a clear ConfigError. */
export function parseHistory(history: unknown): Message[] {
  const parsed = transcriptSchemas().history.safeParse(history);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `at ${issue.path.join(".") || "(root)"}: ${issue.message}` : "";
    throw new ConfigError(`Invalid history: not a glassloop transcript (${where})`);
  }
  const messages = parsed.data as Message[];
  const problem = pairingProblem(messages);
  if (problem) throw new ConfigError(`Invalid history: ${problem}`);
  return messages;
}

/**
 * Where a transcript breaks pairing so that a model would see an orphan result: a tool result that
 * answers no call of the assistant turn right before it, or answers one twice. Pairing is per turn
 * because some models reuse call ids across turns. Calls left without a result are not a problem
 * here: the loop closes them.
 */
function pairingProblem(messages: readonly Message[]): string | undefined {
  let open = new Set<string>();
  let answered = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (m.role === "tool") {
      if (answered.has(m.toolCallId)) return `at ${i}: a second result for tool call "${m.toolCallId}"`;
      if (!open.delete(m.toolCallId)) {
        return `at ${i}: the tool result for call "${m.toolCallId}" follows no assistant message that made that call`;
      }
      answered.add(m.toolCallId);
    } else {
      open = new Set(m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []);
      answered = new Set();
    }
  }
  return undefined;
}
