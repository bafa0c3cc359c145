import { z } from "zod";
import { ConfigError } from "../errors.js";
import type { Message } from "./messages.js";

const toolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

/** The zod schema of a transcript message, for validating history that comes from outside. */
export const messageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({ role: z.literal("assistant"), content: z.string(), toolCalls: z.array(toolCall).optional() }),
  z.object({
    role: z.literal("tool"),
    toolCallId: z.string(),
    toolName: z.string(),
    content: z.string(),
    isError: z.boolean().optional(),
  }),
]);

/** Validates a transcript passed in by a caller; a malformed one is a clear ConfigError. */
export function parseHistory(history: unknown): Message[] {
  const parsed = z.array(messageSchema).safeParse(history);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `at ${issue.path.join(".") || "(root)"}: ${issue.message}` : "";
    throw new ConfigError(`Invalid history: not a glassloop transcript (${where})`);
  }
  return parsed.data as Message[];
}
