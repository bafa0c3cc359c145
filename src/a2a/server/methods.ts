/**
 * The A2A methods over serve's stored runs: a task is a run, its context a chat of the caller's.
 * `SendMessage` starts a turn (or answers an input-required task with decisions) and waits for the
 * task to end or ask; `SendStreamingMessage` streams it; `GetTask` reads it; `CancelTask` aborts
 * it; `SubscribeToTask` joins it where it stands, also after the server restarted.
 */
import { randomUUID } from "node:crypto";
import { CHAT_ID } from "../../serve/chat-request.js";
import { endsSegment, type LogEntry } from "../../serve/log-items.js";
import { type GivenAnswer, isQuestion } from "../../serve/questions.js";
import type { ServeContext } from "../../serve/serve-context.js";
import type { RunRecord } from "../../serve/serve-log.js";
import { parseEventId } from "../../serve/sse.js";
import { getParams, idParams, sendParams } from "../schemas.js";
import { taskV03 } from "../v03.js";
import { protoTask } from "../v03-proto.js";
import { RPC, type Task, TERMINAL_STATES } from "../wire.js";
import { answersOf, decisionsOf, turnText } from "./input.js";
import type { A2AServeOptions } from "./options.js";
import { configOf } from "./push-config.js";
import { addConfig, checkRoom, type PushRuntime } from "./push-dispatcher.js";
import type { PushConfig } from "./push-store.js";
import { A2ARequestError, type Binding, type RpcId, resultResponse, rpcError } from "./rpc.js";
import { type A2ATaskHistory, keepMessage } from "./task-history.js";
import { taskStream } from "./task-stream.js";
import { taskOf } from "./task-view.js";

/** Entries read from the end of a run's log to tell where it stands. */
const TAIL = 16;
const DEFAULT_BLOCKING_WAIT_MS = 5 * 60_000;
const CANCEL_WAIT_MS = 10_000;

/** One call of a method: who asks, of which agent, in which spelling. */
export interface Call {
  ctx: ServeContext;
  options: A2AServeOptions;
  agent: string;
  principal: string;
  version: "1.0" | "0.3";
  id: RpcId;
  /** JSON-RPC (answers in envelopes) or HTTP+JSON (answers bare). */
  binding: Binding;
  request: Request;
  /** Push notifications, when the server offers them. */
  push?: PushRuntime;
  /** Where the tasks' histories live. */
  history: A2ATaskHistory;
}

/** Params read with `schema`, or an invalid-params error naming what is wrong. */
export function parse<T>(
  schema: {
    safeParse(
      v: unknown,
    ):
      | { success: true; data: T }
      | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
  },
  params: unknown,
): T {
  const parsed = schema.safeParse(params);
  if (!parsed.success)
    throw rpcError.invalidParams(
      "invalid params",
      parsed.error.issues
        .slice(0, 20)
        .map((i) => ({ path: i.path.map(String).join("."), message: i.message })),
    );
  return parsed.data;
}

/** The caller's own run of this agent; anything else is "not found", whoever owns it. */
export async function ownRun(call: Call, taskId: string): Promise<RunRecord> {
  const run = await call.ctx.log.getRun(taskId);
  if (!run || run.principal !== call.principal || run.agent !== call.agent)
    throw rpcError.taskNotFound(taskId);
  // Configs kept by a durable store across a restart are followed again once the task is touched.
  if (call.push) await call.push.dispatcher.resume(run, lastSeqOf(call.ctx, run));
  return run;
}

/** The task of `run` as its log says now, with its history (none read when `historyLength` is 0). */
export async function currentTask(
  call: Pick<Call, "ctx" | "history">,
  run: RunRecord,
  historyLength?: number,
): Promise<Task> {
  const { ctx } = call;
  const last = ctx.hub.get(run.runId)?.lastSeq ?? run.lastSeq;
  const from = Math.max(-1, last - TAIL);
  const { entries } = await ctx.hub.read(run.runId, from, TAIL + 1);
  const fresh = (await ctx.log.getRun(run.runId)) ?? run;
  const stored = historyLength === 0 ? [] : await call.history.messages(run.runId);
  return taskOf(fresh, entries, stored, historyLength);
}

/** The sequence number of the run's last item, written or not. */
export function lastSeqOf(ctx: ServeContext, run: RunRecord): number {
  return ctx.hub.get(run.runId)?.lastSeq ?? run.lastSeq;
}

/** Waits until the run's stream after `after` ends a segment (ends, or pauses), or time runs out. */
async function settle(
  ctx: ServeContext,
  runId: string,
  after: number,
  maxMs: number,
  signal: AbortSignal,
): Promise<void> {
  const until = Date.now() + maxMs;
  let cursor = after;
  while (!signal.aborted && Date.now() < until) {
    const { entries, live } = await ctx.hub.read(runId, cursor, 256);
    for (const entry of entries as LogEntry[]) {
      cursor = entry.seq;
      if (endsSegment(entry.item)) return;
    }
    if (entries.length > 0) continue;
    if (!live) return;
    await ctx.hub.wait(runId, cursor, Math.max(1, Math.min(1000, until - Date.now())));
  }
}

/**
 * A task as a result: 1.0's `SendMessage` wraps it (`{ task }`, a one-of with `message`);
 * `GetTask` and `CancelTask` do not. v0.3 writes it with `kind` over JSON-RPC, and as its proto
 * JSON (wrapped the same way) over HTTP+JSON.
 */
function taskResult(call: Call, task: Task, wrapped = false): unknown {
  if (call.version === "0.3" && call.binding === "rest")
    return wrapped ? { task: protoTask(task) } : protoTask(task);
  if (call.version === "0.3") return taskV03(task);
  return wrapped ? { task } : task;
}

/** An SSE response in the caller's spelling: the task as it stands first, then the run's events after `after`. */
function streamResponse(call: Call, run: RunRecord, after: number, first: Task): Response {
  return taskStream(
    call.ctx,
    { version: call.version, rpcId: call.id, binding: call.binding },
    run,
    after,
    first,
  );
}

/** `SendMessage` / `message/send` and `SendStreamingMessage` / `message/stream`. */
export async function sendMessage(call: Call, params: unknown, streaming: boolean): Promise<Response> {
  const { ctx } = call;
  const { message, configuration } = parse(sendParams, params);
  if (message.role !== "ROLE_USER")
    throw rpcError.invalidParams("the message must be the caller's (ROLE_USER)");
  // A webhook sent with the message is checked before any run starts.
  const pushFields = configuration?.taskPushNotificationConfig ?? configuration?.pushNotificationConfig;
  let pushConfig: PushConfig | undefined;
  if (pushFields) {
    if (!call.push) throw new A2ARequestError(RPC.pushNotSupported, "push notifications are not supported");
    pushConfig = configOf(call.version, message.taskId ?? "", pushFields, call.push.options);
    await checkRoom(call.principal, call.push, message.taskId, pushConfig.id);
  }
  let run: RunRecord;
  let after: number;
  if (message.taskId) {
    const existing = await ownRun(call, message.taskId);
    if (message.contextId && message.contextId !== existing.chatId)
      throw rpcError.invalidParams("contextId does not match the task's context");
    const task = await currentTask(call, existing, 0);
    if (task.status.state !== "TASK_STATE_INPUT_REQUIRED") {
      if (TERMINAL_STATES.has(task.status.state))
        throw rpcError.unsupported(
          `task ${existing.runId} has ended (${task.status.state}); send a new message in its context instead`,
        );
      throw rpcError.unsupported(
        `task ${existing.runId} is working; wait for it, subscribe to it, or cancel it`,
      );
    }
    const open = await ctx.log.openApprovals(existing.runId);
    // Tools' questions (an MCP server's elicitation) share the approvals' table: each has its own answer.
    const asked = open.filter(isQuestion);
    const answers = asked.length > 0 ? answersOf(message, asked) : undefined;
    const decisions = answers ? [] : decisionsOf(message, open);
    // The question answered now is no longer the task's status: the history keeps it.
    if (task.status.message) await keepMessage(call.history, task.id, task.status.message);
    const resumed = answers
      ? await answer(call, existing.runId, answers)
      : await ctx.runs.decide(call.principal, decisions, existing.chatId);
    run = resumed.run;
    after = resumed.after;
    await keepMessage(call.history, run.runId, { ...message, taskId: run.runId, contextId: run.chatId });
  } else {
    const text = turnText(message, ctx.limits.maxMessageChars);
    const contextId = message.contextId ?? `ctx-${randomUUID()}`;
    if (!CHAT_ID.test(contextId)) throw rpcError.invalidParams("contextId must match [A-Za-z0-9_-]{1,128}");
    const chat = await ctx.log.getChat(call.principal, contextId);
    if (chat && chat.agent !== call.agent)
      throw rpcError.invalidParams(`context ${contextId} belongs to another agent`);
    const current =
      chat ??
      (await ctx.log.ensureChat({
        principal: call.principal,
        chatId: contextId,
        agent: call.agent,
        title: text.slice(0, 80),
      }));
    run = await ctx.runs.startTurn(call.principal, current, { input: text, messageId: message.messageId });
    after = -1;
    await keepMessage(call.history, run.runId, { ...message, taskId: run.runId, contextId: run.chatId });
  }
  if (pushConfig && call.push)
    await addConfig(call.principal, call.push, run, { ...pushConfig, taskId: run.runId }, after);
  if (streaming)
    return streamResponse(call, run, after, await currentTask(call, run, configuration?.historyLength));
  const immediately = configuration?.returnImmediately === true || configuration?.blocking === false;
  if (!immediately)
    await settle(
      ctx,
      run.runId,
      after,
      call.options.blockingWaitMs ?? DEFAULT_BLOCKING_WAIT_MS,
      call.request.signal,
    );
  return resultResponse(
    call,
    taskResult(call, await currentTask(call, run, configuration?.historyLength), true),
  );
}

/** Resumes a run paused on tools' questions with the caller's answers (serve checks each against its form). */
function answer(
  call: Call,
  runId: string,
  answers: GivenAnswer[],
): Promise<{ run: RunRecord; after: number }> {
  if (!call.ctx.runs.answer)
    throw rpcError.unsupported("this server's runs cannot take answers to questions");
  return call.ctx.runs.answer(call.principal, runId, answers);
}

/** `GetTask` / `tasks/get`. */
export async function getTask(call: Call, params: unknown): Promise<Response> {
  const { id, historyLength } = parse(getParams, params);
  const run = await ownRun(call, id);
  return resultResponse(call, taskResult(call, await currentTask(call, run, historyLength)));
}

/** `CancelTask` / `tasks/cancel`: aborts a working task, discards one that waits for input. */
export async function cancelTask(call: Call, params: unknown): Promise<Response> {
  const { id } = parse(idParams, params);
  const run = await ownRun(call, id);
  const before = await currentTask(call, run, 0);
  if (TERMINAL_STATES.has(before.status.state))
    throw new A2ARequestError(-32002, `task ${id} has ended (${before.status.state}) and cannot be canceled`);
  // A question nobody will answer now stays in the history, before the cancellation's end.
  if (before.status.state === "TASK_STATE_INPUT_REQUIRED" && before.status.message)
    await keepMessage(call.history, id, before.status.message);
  const after = lastSeqOf(call.ctx, run);
  await call.ctx.runs.cancel(call.principal, id);
  await settle(call.ctx, id, after, CANCEL_WAIT_MS, call.request.signal);
  return resultResponse(call, taskResult(call, await currentTask(call, run)));
}

/**
 * `SubscribeToTask` / `tasks/resubscribe`: the task as it stands, then its events from here on
 * (after `Last-Event-ID` when the caller sends one). A task that has ended has nothing to follow.
 */
export async function subscribeToTask(call: Call, params: unknown): Promise<Response> {
  const { id } = parse(idParams, params);
  const run = await ownRun(call, id);
  const task = await currentTask(call, run);
  if (TERMINAL_STATES.has(task.status.state))
    throw rpcError.unsupported(`task ${id} has ended (${task.status.state}); read it with GetTask`);
  const resume = parseEventId(call.request.headers.get("last-event-id"));
  const last = lastSeqOf(call.ctx, run);
  const after = resume?.runId === id && resume.seq <= last ? resume.seq : last;
  return streamResponse(call, run, after, task);
}
