/**
 * What the server reads from a caller's message: the text of a new turn, or the decisions that
 * answer an input-required task. Files are refused (a URL is never fetched on a caller's say);
 * data parts reach the agent as JSON text.
 */

import type { Decision } from "../../serve/approval-check.js";
import { answersBody, type GivenAnswer } from "../../serve/questions.js";
import type { ApprovalRecord } from "../../serve/serve-log.js";
import { type Message, RPC } from "../wire.js";
import { A2ARequestError, rpcError } from "./rpc.js";

/** The text a new turn gives the agent: text parts, then data parts as JSON. */
export function turnText(message: Message, maxChars: number): string {
  const pieces: string[] = [];
  for (const part of message.parts) {
    if (part.url !== undefined || part.raw !== undefined)
      throw new A2ARequestError(
        RPC.contentTypeNotSupported,
        "file parts are not accepted: send text or data parts",
      );
    if (part.text !== undefined) pieces.push(part.text);
    else if (part.data !== undefined) pieces.push(JSON.stringify(part.data));
  }
  const text = pieces.join("\n");
  if (text.trim() === "") throw rpcError.invalidParams("the message has no text or data");
  if (text.length > maxChars)
    throw rpcError.invalidParams(`the message is longer than ${maxChars} characters`);
  return text;
}

const YES = new Set(["approve", "approved", "yes", "y", "ok"]);
const NO = new Set(["reject", "rejected", "no", "n", "deny"]);

/**
 * The decisions an answer to an input-required task carries, for the approvals that wait:
 * a data part `{ approved, reason? }` (every waiting call), or `{ decisions: [...] }`, or the
 * text "approve" / "reject". Anything else is refused with how to answer.
 */
export function decisionsOf(message: Message, open: readonly ApprovalRecord[]): Decision[] {
  const all = (approved: boolean, reason?: string): Decision[] =>
    open.map((a) => ({ approvalId: a.approvalId, approved, ...(reason !== undefined && { reason }) }));
  for (const part of message.parts) {
    const data = part.data;
    if (typeof data === "object" && data !== null && !Array.isArray(data)) {
      const d = data as Record<string, unknown>;
      if (typeof d.approved === "boolean")
        return all(d.approved, typeof d.reason === "string" ? d.reason.slice(0, 2000) : undefined);
      if (Array.isArray(d.decisions)) {
        const out: Decision[] = [];
        for (const item of d.decisions.slice(0, 100)) {
          const x = item as Record<string, unknown>;
          if (typeof x?.approvalId !== "string" || typeof x.approved !== "boolean")
            throw rpcError.invalidParams("each decision needs approvalId (string) and approved (boolean)");
          out.push({
            approvalId: x.approvalId,
            approved: x.approved,
            ...(typeof x.reason === "string" && { reason: x.reason.slice(0, 2000) }),
          });
        }
        return out;
      }
    }
    if (part.text !== undefined) {
      const word = part.text
        .trim()
        .toLowerCase()
        .replace(/[.!]+$/, "");
      if (YES.has(word)) return all(true);
      if (NO.has(word)) return all(false);
    }
  }
  throw rpcError.invalidParams(
    'the task waits for a decision: send a data part {"approved": true} or {"approved": false}, or the text "approve" or "reject"',
  );
}

/**
 * The answers to a task whose tools asked questions, as serve's answers route takes them: a data
 * part `{ answers: [{ questionId, answer: { action, content? } }] }`, or, when one question waits,
 * its answer alone (`{ action: "accept", content }`, `{ action: "decline" }`, `{ action: "cancel" }`).
 * serve then checks each against its question's form. Anything else is refused with how to answer.
 */
export function answersOf(message: Message, asked: readonly ApprovalRecord[]): GivenAnswer[] {
  for (const part of message.parts) {
    const data = part.data;
    if (typeof data !== "object" || data === null || Array.isArray(data)) continue;
    const d = data as Record<string, unknown>;
    const one = asked[0];
    const body =
      "answers" in d
        ? d
        : asked.length === 1 && one && "action" in d
          ? { answers: [{ questionId: one.approvalId, answer: d }] }
          : undefined;
    if (!body) continue;
    const parsed = answersBody.safeParse(body);
    if (!parsed.success)
      throw rpcError.invalidParams(
        "the answers are not valid",
        parsed.error.issues
          .slice(0, 20)
          .map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
      );
    return parsed.data.answers as GivenAnswer[];
  }
  throw rpcError.invalidParams(
    'the task waits for answers to its questions: send a data part {"answers": [{"questionId", "answer": {"action": "accept", "content": {...}}}]} (or "decline", "cancel")',
  );
}
