/** The `useChat` routes: send, resume, and the caller's chats. */
import type { Hono } from "hono";
import { CHAT_ID, parseChatRequest } from "./chat-request.js";
import { refuse, ServeRequestError } from "./errors.js";
import { readJsonBody } from "./limits.js";
import { allEntries, principalOf, type ServeContext, type ServeEnv, sseResponse } from "./serve-context.js";
import type { ChatRecord, RunRecord } from "./serve-log.js";
import { parseEventId } from "./sse.js";
import { assistantMessage, type ServedUIMessage, userMessage } from "./ui-messages.js";
import { type StreamContext, uiChunks } from "./ui-stream.js";

/** The UI message stream encoder for one run. */
export function uiEncoder(ctx: StreamContext) {
  return {
    encode: (entry: { item: Parameters<typeof uiChunks>[0] }) => uiChunks(entry.item, ctx),
    done: "[DONE]",
  };
}

function checkChatId(chatId: string): string {
  if (!CHAT_ID.test(chatId)) throw refuse.invalid("the chat id must match [A-Za-z0-9_-]{1,128}");
  return chatId;
}

/** A chat's runs as its messages show them: a run made again is replaced by the one that remade it. */
export function shownRuns(runs: readonly RunRecord[]): RunRecord[] {
  const replaced = new Set(runs.flatMap((r) => (r.replaces === undefined ? [] : [r.replaces])));
  return runs.filter((r) => !replaced.has(r.runId));
}

/** Mounts the chat routes on `app`. */
export function chatRoutes(app: Hono<ServeEnv>, ctx: ServeContext): void {
  const { log, runs, agents, limits } = ctx;

  app.get("/api/me", (c) => c.json({ id: principalOf(c) }));

  app.get("/api/agents", async (c) => {
    const list = await Promise.all(agents.names.map((name) => agents.info(name)));
    return c.json({ agents: list, default: agents.names[0] });
  });

  app.post("/api/chat", async (c) => {
    const principal = principalOf(c);
    const body = await readJsonBody(c.req.raw, limits.maxBodyBytes);
    const ask = parseChatRequest(body, limits.maxMessageChars, ctx.attachments);
    let chat = await log.getChat(principal, ask.chatId);
    if (ask.kind === "approvals") {
      if (!chat) throw refuse.notFound("approval");
      const { run, after } = await runs.decide(principal, ask.decisions, ask.chatId);
      return sseResponse(ctx, run, after, uiEncoder(run), "ui");
    }
    if (ask.kind === "regenerate") {
      if (!chat) throw refuse.notFound("chat");
      const last = shownRuns(await log.listChatRuns(principal, chat.chatId)).at(-1);
      if (!last) throw refuse.conflict("the chat has no answer to make again");
      // Only the last turn: an earlier one would drop the turns after it from the session.
      const named = ask.messageId?.match(/^(run_[A-Za-z0-9-]+):(?:assistant|user)$/)?.[1];
      if (named !== undefined && named !== last.runId)
        throw refuse.conflict("only the chat's last answer can be made again");
      const run = await runs.startTurn(principal, chat, { input: last.input, replaces: last });
      return sseResponse(ctx, run, -1, uiEncoder(run), "ui");
    }
    if (!chat) chat = await newChat(principal, ask.chatId, ask.agent, ask.text);
    const { images, files } = ask.attached;
    const run = await runs.startTurn(principal, chat, { input: ask.text, images, files });
    return sseResponse(ctx, run, -1, uiEncoder(run), "ui");
  });

  app.get("/api/chat/:chatId/stream", async (c) => {
    const principal = principalOf(c);
    const chat = await log.getChat(principal, checkChatId(c.req.param("chatId")));
    // No chat, or nothing running: useChat's "no stream to resume" (and nothing to tell apart).
    if (!chat?.activeRun) return c.body(null, 204);
    const run = await log.getRun(chat.activeRun);
    if (!run) return c.body(null, 204);
    const last = parseEventId(c.req.header("last-event-id") ?? c.req.query("after"));
    const after = last && last.runId === run.runId ? Math.min(last.seq, run.lastSeq + 1_000_000) : -1;
    return sseResponse(ctx, run, after, uiEncoder(run), "ui");
  });

  app.get("/api/chats", async (c) => {
    const chats = await log.listChats(principalOf(c), 200);
    return c.json({ chats: await Promise.all(chats.map(describeChat)) });
  });

  app.get("/api/chats/:chatId", async (c) => {
    const principal = principalOf(c);
    const chat = await log.getChat(principal, checkChatId(c.req.param("chatId")));
    if (!chat) throw refuse.notFound("chat");
    const messages: ServedUIMessage[] = [];
    for (const run of shownRuns(await log.listChatRuns(principal, chat.chatId))) {
      messages.push(userMessage(run));
      if (run.runId === chat.activeRun) continue;
      const entries = [];
      for await (const entry of allEntries(ctx, run.runId)) entries.push(entry);
      messages.push(assistantMessage(run, entries));
    }
    return c.json({ ...(await describeChat(chat)), messages });
  });

  app.delete("/api/chats/:chatId", async (c) => {
    const principal = principalOf(c);
    const chat = await log.getChat(principal, checkChatId(c.req.param("chatId")));
    if (!chat) throw refuse.notFound("chat");
    if (chat.activeRun) throw refuse.conflict("the chat has a run in progress; cancel it first");
    await log.deleteChat(principal, chat.chatId);
    return c.body(null, 204);
  });

  async function newChat(
    principal: string,
    chatId: string,
    agent: string | undefined,
    text: string,
  ): Promise<ChatRecord> {
    const name = agent ?? (agents.names.length === 1 ? agents.names[0] : undefined);
    if (name === undefined)
      throw refuse.invalid(`a new chat needs "agent" in the body: one of ${agents.names.join(", ")}`);
    if (!agents.has(name))
      throw new ServeRequestError(404, "unknown_agent", `no agent named ${JSON.stringify(name)}`);
    return log.ensureChat({ principal, chatId, agent: name, title: text.slice(0, 80) });
  }

  async function describeChat(chat: ChatRecord) {
    const active = chat.activeRun ? await log.getRun(chat.activeRun) : undefined;
    return {
      id: chat.chatId,
      agent: chat.agent,
      title: chat.title,
      createdAt: chat.createdAt,
      updatedAt: chat.updatedAt,
      activeRun: active ? { runId: active.runId, status: active.status } : null,
    };
  }
}
