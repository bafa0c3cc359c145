/**
 * What the server takes from a `useChat` request body (DefaultChatTransport's `{ id, messages,
 * trigger, messageId, ...body }`): the chat id, the agent, and from the last message either the
 * user's new text and files or the approval decisions; or, for `regenerate-message`, which answer
 * to make again. Everything else a client sends (earlier turns, assistant text, tool outputs) is
 * ignored: the stored session is the history.
 */
import { z } from "zod";
import type { Decision } from "./approval-check.js";
import type { Attached, AttachmentRules } from "./attachments.js";
import { type FieldError, refuse, ServeRequestError } from "./errors.js";

/** A chat id: what `useChat` generates and what fits a URL path segment. */
export const CHAT_ID = /^[A-Za-z0-9_-]{1,128}$/;

const chatId = z.string().regex(CHAT_ID, "must match [A-Za-z0-9_-]{1,128}");
const part = z.looseObject({ type: z.string().max(200) });
const message = z.looseObject({
  role: z.enum(["user", "assistant", "system"]),
  parts: z.array(part).max(2_000),
});

const chatBody = z.looseObject({
  id: chatId,
  messages: z.array(message).min(1).max(10_000),
  trigger: z.enum(["submit-message", "regenerate-message"]).optional(),
  messageId: z.string().max(300).optional(),
  agent: z.string().max(64).optional(),
});

const approvalPart = z.looseObject({
  state: z.literal("approval-responded"),
  approval: z.object({
    id: z.string().min(1).max(200),
    approved: z.boolean(),
    reason: z.string().max(500).optional(),
  }),
});

/** What one `POST /api/chat` asks for. */
export type ChatAsk =
  | { kind: "message"; chatId: string; agent?: string; text: string; attached: Attached }
  /** Make the last answer again; `messageId`, when sent, names the message to regenerate from. */
  | { kind: "regenerate"; chatId: string; agent?: string; messageId?: string }
  | { kind: "approvals"; chatId: string; agent?: string; decisions: Decision[] };

/** Validates a body as far as the server reads it; 422 with the failing fields otherwise. */
export function parseChatRequest(body: unknown, maxChars: number, attachments: AttachmentRules): ChatAsk {
  const parsed = chatBody.safeParse(body);
  if (!parsed.success) throw refuse.invalid("the chat request is not valid", fieldErrors(parsed.error));
  const { id, messages, trigger, agent, messageId } = parsed.data;
  const base = { chatId: id, ...(agent !== undefined && { agent }) };
  // What to run again is the server's stored turn: the messages the client sends with it are not read.
  if (trigger === "regenerate-message")
    return { kind: "regenerate", ...base, ...(messageId !== undefined && { messageId }) };
  const last = messages.at(-1) as z.infer<typeof message>;
  if (last.role === "user") {
    const texts: string[] = [];
    const files: Record<string, unknown>[] = [];
    for (const p of last.parts) {
      if (p.type === "text") {
        if (typeof p.text !== "string") throw refuse.invalid("a text part needs text");
        texts.push(p.text);
      } else if (p.type === "file") {
        files.push(p);
      }
    }
    const text = texts.join("\n");
    if (text.trim() === "") throw refuse.invalid("the message has no text");
    if (text.length > maxChars)
      throw new ServeRequestError(
        413,
        "payload_too_large",
        `the message is longer than ${maxChars} characters`,
      );
    return { kind: "message", ...base, text, attached: attachments.take(files) };
  }
  if (last.role === "assistant") {
    const decisions: Decision[] = [];
    for (const p of last.parts) {
      if (!(p.type.startsWith("tool-") || p.type === "dynamic-tool") || p.state !== "approval-responded")
        continue;
      const ok = approvalPart.safeParse(p);
      if (!ok.success) throw refuse.invalid("an approval response is not valid", fieldErrors(ok.error));
      const { id: approvalId, approved, reason } = ok.data.approval;
      decisions.push({ approvalId, approved, ...(reason !== undefined && { reason }) });
    }
    if (decisions.length === 0)
      throw refuse.invalid("the last message is the assistant's but holds no approval responses");
    return { kind: "approvals", ...base, decisions };
  }
  throw refuse.invalid("the last message must be the user's (or the assistant's with approval responses)");
}

/** zod issues as `{ path, message }`, without echoing the values. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.slice(0, 20).map((i) => ({ path: i.path.join(".") || "(body)", message: i.message }));
}
