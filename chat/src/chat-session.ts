import { ApiError, call, openStream, paths, type StoredChat } from "./api.js";
import { readUiStream } from "./sse.js";
import { type ChatMessage, isToolPart } from "./ui-message.js";
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
    const message =
      error instanceof ApiError
        ? `${error.message}${error.code !== String(error.status) ? ` (${error.code})` : ""}`
        : String((error as Error)?.message ?? error);
    this.set({ status: "ready", error: message });
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
