import { ApiError, call, openStream, paths, type StoredChat } from "./api.js";
import type { Question, QuestionAnswer } from "./question-form.js";
import { readUiStream } from "./sse.js";
import { type ChatMessage, type DataPart, isToolPart } from "./ui-message.js";
import { MessageAssembler } from "./ui-stream.js";

/** Where a chat is: what the composer and the stop button show. */
export type ChatStatus = "loading" | "ready" | "submitted" | "streaming" | "awaiting-approval";

/** A chat as the page shows it. */
export interface ChatState {
  chatId: string;
  /** The agent the chat is bound to (after its first message), else the one picked for it. */
  agent: string | undefined;
  messages: ChatMessage[];
  status: ChatStatus;
  /** The run streaming now or waiting for approvals. */
  runId: string | undefined;
  /** The last failure: of the run (an error part) or of a call (a problem from the server). */
  error: string | undefined;
}

/** How a stream's message joins the list: a fresh build replaces one with the same id, a continuation extends it. */
type Join = "replace" | "continue";

const RECONNECTS = 3;

/** A fresh id for a chat or a user message. */
export function newId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/**
 * One chat with the server: send a message, answer approvals, stop, and pick up a run that is
 * still going after a reload (the resume route replays it from its first chunk, which rebuilds the
 * message whole: no gap, no duplicate). A stream cut by the network continues with `Last-Event-ID`.
 */
export class ChatSession {
  private state: ChatState;
  private readonly listeners = new Set<(state: ChatState) => void>();
  private controller: AbortController | undefined;
  private scheduled = false;
  /** Answers given to the questions now waiting, until all are given and sent. */
  private readonly answers = new Map<string, QuestionAnswer>();
  /** Questions answered from this page (their parts stay in the message). */
  private readonly answered = new Set<string>();
  /** Answers on their way to the server: a second click sends nothing. */
  private sending = false;

  constructor(chatId: string, agent: string | undefined) {
    this.state = { chatId, agent, messages: [], status: "loading", runId: undefined, error: undefined };
  }

  /** The state now. */
  get current(): ChatState {
    return this.state;
  }

  /** Calls `listener` on every change (at most once per frame while a stream pours in). */
  subscribe(listener: (state: ChatState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Loads the stored history; continues the run still going, if any. A chat unknown to the server starts empty. */
  async load(): Promise<void> {
    let stored: StoredChat | undefined;
    try {
      stored = await call<StoredChat>(paths.chat(this.state.chatId));
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) return this.fail(error);
    }
    this.set({
      messages: stored?.messages ?? [],
      agent: stored?.agent ?? this.state.agent,
      status: "ready",
      runId: stored?.activeRun?.runId,
    });
    if (stored?.activeRun) await this.resume();
  }

  /** Picks the agent of a chat that has no message yet. */
  pickAgent(agent: string): void {
    if (this.state.messages.length === 0) this.set({ agent });
  }

  /** Sends the user's text as a new turn. */
  async send(text: string): Promise<void> {
    if (!text.trim() || this.busy()) return;
    const user: ChatMessage = { id: newId(), role: "user", parts: [{ type: "text", text }] };
    this.set({ messages: [...this.state.messages, user], status: "submitted", error: undefined });
    // Only the new message travels: the server reads the last one and keeps the history itself.
    await this.post(
      { id: this.state.chatId, messages: [user], trigger: "submit-message", agent: this.state.agent },
      "replace",
    );
  }

  /** Records a person's decision on one waiting call; once every waiting call of the turn is decided, sends them. */
  async decide(toolCallId: string, approved: boolean): Promise<void> {
    if (this.state.status !== "awaiting-approval") return;
    const last = this.state.messages.at(-1);
    if (last?.role !== "assistant") return;
    const parts = last.parts.map((part) =>
      isToolPart(part) &&
      part.toolCallId === toolCallId &&
      part.state === "approval-requested" &&
      part.approval
        ? { ...part, state: "approval-responded" as const, approval: { ...part.approval, approved } }
        : part,
    );
    const answered: ChatMessage = { ...last, parts };
    this.replaceLast(answered);
    const waiting = parts.some((p) => isToolPart(p) && p.state === "approval-requested");
    if (waiting) return;
    this.set({ status: "submitted", error: undefined });
    await this.post(
      { id: this.state.chatId, messages: [answered], trigger: "submit-message", agent: this.state.agent },
      "continue",
    );
  }

  /**
   * The questions the paused run waits on: the question parts of the last answer since its last
   * step began, less those answered here.
   */
  waitingQuestions(): Question[] {
    if (this.state.status !== "awaiting-approval") return [];
    const last = this.state.messages.at(-1);
    if (last?.role !== "assistant") return [];
    const since = last.parts.map((p) => p.type).lastIndexOf("step-start");
    return last.parts
      .slice(since + 1)
      .filter((p): p is DataPart => p.type === "data-glassloop-question")
      .map((p) => p.data as Question)
      .filter((q) => !this.answered.has(q.questionId));
  }

  /**
   * Records the person's answer to one waiting question; once every waiting question has one, sends
   * them (bound to their question ids) and follows the run on from where the pause left it.
   */
  async answer(questionId: string, answer: QuestionAnswer): Promise<void> {
    const runId = this.state.runId;
    const waiting = this.waitingQuestions();
    if (!runId || this.sending || !waiting.some((q) => q.questionId === questionId)) return;
    this.answers.set(questionId, answer);
    if (waiting.some((q) => !this.answers.has(q.questionId))) return this.emit();
    const answers = waiting.map((q) => ({
      questionId: q.questionId,
      answer: this.answers.get(q.questionId),
    }));
    // The status stays until the run goes on, so the form (and what was typed) stays if refused.
    this.set({ error: undefined });
    let after: number;
    this.sending = true;
    try {
      ({ after } = await call<{ after: number }>(paths.answers(runId), {
        method: "POST",
        body: JSON.stringify({ answers }),
      }));
    } catch (error) {
      // Refused (it does not fit the form, or it was answered elsewhere): the question stays.
      // The form stays as the person filled it (it is not unmounted by a status in between).
      for (const q of waiting) this.answers.delete(q.questionId);
      this.set({ status: "awaiting-approval", error: failureText(error) });
      return;
    } finally {
      this.sending = false;
    }
    for (const q of waiting) this.answered.add(q.questionId);
    await this.stream(
      (signal) =>
        openStream(paths.runStream(runId), { headers: { "last-event-id": `${runId}/${after}` }, signal }),
      "continue",
    );
  }

  /** Stops the run: closes the stream and cancels the run on the server (closing alone leaves it running). */
  async stop(): Promise<void> {
    const runId = this.state.runId;
    this.controller?.abort();
    this.controller = undefined;
    this.set({ status: "ready" });
    if (!runId) return;
    try {
      await call(paths.cancel(runId), { method: "POST", body: "{}" });
    } catch (error) {
      // The run ended on its own meanwhile: nothing left to stop.
      if (!(error instanceof ApiError && error.status === 409)) this.fail(error);
    }
    this.set({ runId: undefined });
  }

  /** Closes the stream (a page leaving the chat); the run goes on and can be resumed. */
  close(): void {
    this.controller?.abort();
    this.listeners.clear();
  }

  private busy(): boolean {
    return (
      this.state.status === "submitted" ||
      this.state.status === "streaming" ||
      this.state.status === "loading"
    );
  }

  private async resume(): Promise<void> {
    await this.stream((signal) => openStream(paths.resume(this.state.chatId), { signal }), "replace");
  }

  private async post(body: Record<string, unknown>, join: Join): Promise<void> {
    await this.stream(
      (signal) => openStream(paths.send, { method: "POST", body: JSON.stringify(body), signal }),
      join,
    );
  }

  private async stream(open: (signal: AbortSignal) => Promise<Response | null>, join: Join): Promise<void> {
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    const { signal } = controller;
    let res: Response | null;
    try {
      res = await open(signal);
    } catch (error) {
      if (!signal.aborted) this.fail(error);
      return;
    }
    if (!res) return this.set({ status: "ready", runId: undefined });
    const runId = res.headers.get("x-glassloop-run-id") ?? this.state.runId;
    this.set({ status: "streaming", runId });
    let assembler: MessageAssembler | undefined;
    let lastId: string | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        let finished = false;
        for await (const event of readUiStream(res.body!)) {
          lastId = event.id ?? lastId;
          assembler ??= this.begin(event.chunk.type === "start" ? event.chunk.messageId : undefined, join);
          assembler.apply(event.chunk);
          if (event.chunk.type === "finish") finished = true;
          this.publish(assembler);
        }
        // Ended before the run's end (a server handing its runs over as it stops): a cut like any other.
        if (!finished) throw new Error("the stream ended before the run did");
        break;
      } catch (error) {
        if (signal.aborted) return;
        // The network cut the stream: continue after the last event seen (the run never stopped).
        if (attempt >= RECONNECTS || !runId || !lastId) return this.fail(error);
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
        try {
          const next = await openStream(paths.runStream(runId), {
            headers: { "last-event-id": lastId },
            signal,
          });
          if (!next) break;
          res = next;
        } catch (reopenError) {
          if (!signal.aborted) this.fail(reopenError);
          return;
        }
      }
    }
    if (signal.aborted) return;
    this.finish(assembler);
  }

  /** Starts the message a stream builds: a continuation extends the last assistant message, a replay rebuilds its own. */
  private begin(messageId: string | undefined, join: Join): MessageAssembler {
    const last = this.state.messages.at(-1);
    const base =
      join === "continue" && last?.role === "assistant" && (!messageId || last.id === messageId)
        ? last
        : undefined;
    return new MessageAssembler(base, messageId ?? newId());
  }

  /** Shows the stream's message: in place of one with its id (a replay, a continuation), else at the end. */
  private publish(assembler: MessageAssembler): void {
    const message = assembler.snapshot();
    const messages = [...this.state.messages];
    const index = messages.findIndex((m) => m.id === message.id);
    if (index >= 0) messages[index] = message;
    else messages.push(message);
    this.state = { ...this.state, messages };
    this.schedule();
  }

  private finish(assembler: MessageAssembler | undefined): void {
    const status = assembler?.snapshot().metadata?.status;
    const error = assembler?.errors.at(-1);
    if (status === "awaiting_approval") this.set({ status: "awaiting-approval", error });
    else this.set({ status: "ready", runId: undefined, error });
  }

  private replaceLast(message: ChatMessage): void {
    this.set({ messages: [...this.state.messages.slice(0, -1), message] });
  }

  private fail(error: unknown): void {
    this.set({ status: "ready", error: failureText(error) });
  }

  private set(patch: Partial<ChatState>): void {
    this.state = { ...this.state, ...patch };
    this.emit();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.emit();
    });
  }

  private emit(): void {
    for (const listener of this.listeners) listener(this.state);
  }
}

/** What the chat shows of a failure: a problem's message and code, or the error's message. */
function failureText(error: unknown): string {
  return error instanceof ApiError
    ? `${error.message}${error.code !== String(error.status) ? ` (${error.code})` : ""}`
    : String((error as Error)?.message ?? error);
}
