/**
 * AG-UI over HTTP: `POST /api/agui/:agent` takes a `RunAgentInput` (what `@ag-ui/client`'s
 * HttpAgent sends) and answers with SSE events. The thread id is the chat id (the same
 * per-principal sessions as `useChat`); of the messages only the last user message is read, and
 * `resume` entries answer approval interrupts.
 */
import type { Hono } from "hono";
import { z } from "zod";
import { type AguiContext, aguiEvents } from "./agui-stream.js";
import { CHAT_ID, fieldErrors } from "./chat-request.js";
import { refuse, ServeRequestError } from "./errors.js";
import { readJsonBody } from "./limits.js";
import type { LogEntry } from "./log-items.js";
import { principalOf, type ServeContext, type ServeEnv, sseResponse } from "./serve-context.js";

const input = z.looseObject({
  threadId: z.string().regex(CHAT_ID, "must match [A-Za-z0-9_-]{1,128}"),
  runId: z.string().max(200).optional(),
  messages: z
    .array(z.looseObject({ role: z.string().max(40), content: z.unknown().optional() }))
    .max(10_000)
    .default([]),
  resume: z
    .array(
      z.looseObject({
        interruptId: z.string().min(1).max(200),
        status: z.enum(["resolved", "cancelled"]),
        payload: z.unknown().optional(),
      }),
    )
    .max(100)
    .optional(),
});

/** The AG-UI encoder for one run on one thread. */
export function aguiEncoder(ctx: AguiContext) {
  return { encode: (entry: LogEntry) => aguiEvents(entry.item, ctx) };
}

/** Mounts the AG-UI route on `app`. */
export function aguiRoutes(app: Hono<ServeEnv>, ctx: ServeContext): void {
  const { log, runs, agents, limits } = ctx;
  app.post("/api/agui/:agent", async (c) => {
    const principal = principalOf(c);
    const agent = c.req.param("agent");
    if (!agents.has(agent))
      throw new ServeRequestError(404, "unknown_agent", `no agent named ${JSON.stringify(agent)}`);
    const parsed = input.safeParse(await readJsonBody(c.req.raw, limits.maxBodyBytes));
    if (!parsed.success) throw refuse.invalid("the RunAgentInput is not valid", fieldErrors(parsed.error));
    const { threadId, messages, resume } = parsed.data;
    const chat = await log.getChat(principal, threadId);
    if (chat && chat.agent !== agent) throw refuse.conflict(`this thread belongs to agent ${chat.agent}`);
    if (resume && resume.length > 0) {
      if (!chat) throw refuse.notFound("interrupt");
      const decisions = resume.map((r) => ({
        approvalId: r.interruptId,
        approved:
          r.status === "resolved" && (r.payload as { approved?: unknown } | undefined)?.approved === true,
      }));
      const { run, after } = await runs.decide(principal, decisions, threadId);
      return sseResponse(ctx, run, after, aguiEncoder({ threadId, runId: run.runId }), "agui");
    }
    const last = messages.at(-1);
    if (last?.role !== "user") throw refuse.invalid("the last message must be the user's");
    const text = textOf(last.content);
    if (text.trim() === "") throw refuse.invalid("the user message has no text");
    if (text.length > limits.maxMessageChars)
      throw new ServeRequestError(
        413,
        "payload_too_large",
        `the message is longer than ${limits.maxMessageChars} characters`,
      );
    const current =
      chat ?? (await log.ensureChat({ principal, chatId: threadId, agent, title: text.slice(0, 80) }));
    const run = await runs.startTurn(principal, current, { input: text });
    return sseResponse(ctx, run, -1, aguiEncoder({ threadId, runId: run.runId }), "agui");
  });
}

/** A message's text: a string, or the text of its content parts. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is { type: "text"; text: string } => p?.type === "text" && typeof p.text === "string")
    .map((p) => p.text)
    .join("\n");
}
