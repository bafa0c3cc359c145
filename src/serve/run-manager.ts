import { randomBytes, randomUUID } from "node:crypto";
import type { Agent } from "../agent/agent.js";
import type { Redactor } from "../core/redact.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { RunStatus } from "../core/vocabulary/status.js";
import { ApprovalRequiredError } from "../features/approval/approval.js";
import { emptyUsage } from "../loop/usage.js";
import type { Store } from "../store/store.js";
import type { AgentTable } from "./agents.js";
import { attachmentNotes } from "./attachments.js";
import { refuse } from "./errors.js";
import type { ApprovalItem, LogItem } from "./log-items.js";
import { EventNormalizer, type LeftOpen } from "./normalize.js";
import { describe, failBeforeStart, openParts } from "./run-closing.js";
import type { RunChannel, RunHub } from "./run-hub.js";
import { RunSlots } from "./run-slots.js";
import type { ChatRecord, RunRecord, ServeLog, ServeRunStatus } from "./serve-log.js";
import { parseOutput } from "./tool-output.js";
import { type Turn, turnSession } from "./turn-session.js";

/** One decision on an approval the server handed out. */
export interface Decision {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/** What the run manager needs from the handler. */
export interface RunManagerOptions {
  log: ServeLog;
  hub: RunHub;
  agents: AgentTable;
  store: Store;
  redactor: Redactor;
  /** Most runs one principal may have running at once. */
  maxActiveRuns: number;
}

/**
 * Starts, continues and stops runs for HTTP callers, each a durable glassloop run on the store,
 * and writes what they emit to the serve log. A run goes on when its HTTP response closes; only
 * `cancel` (or the run's own limits) stops it.
 */
export class RunManager {
  readonly #o: RunManagerOptions;
  readonly #aborts = new Map<string, AbortController>();
  readonly #slots: RunSlots;
  readonly #drivers = new Set<Promise<void>>();

  constructor(options: RunManagerOptions) {
    this.#o = options;
    this.#slots = new RunSlots(options.maxActiveRuns);
  }

  /**
   * Starts a turn on `chat`; the returned run's stream starts at sequence 0. With `replaces` (the
   * chat's last run), the turn is that run's made again: on a copy of the session cut where that
   * run began, with its input and files, so the model sees the history as it was.
   */
  async startTurn(principal: string, chat: ChatRecord, turn: Turn): Promise<RunRecord> {
    const { log, agents } = this.#o;
    this.#slots.reserve(principal);
    let agent: Agent<unknown, unknown> | undefined;
    let claimed = false;
    const runId = `run_${randomUUID()}`;
    let asked: Awaited<ReturnType<typeof turnSession>>;
    try {
      agent = await agents.make(chat.agent);
      if (!(await log.claimChat(principal, chat.chatId, runId)))
        throw refuse.conflict("this chat already has a run in progress; wait for it, or cancel it");
      claimed = true;
      asked = await turnSession(this.#o, principal, chat, runId, turn);
      await log.createRun({
        runId,
        principal,
        chatId: chat.chatId,
        agent: chat.agent,
        model: agent.model.id,
        input: asked.input,
        session: asked.session,
        sessionStart: asked.sessionStart,
        ...(turn.replaces && { replaces: turn.replaces.runId }),
        ...(turn.messageId !== undefined && { messageId: turn.messageId }),
        attachments: attachmentNotes({ images: [...(asked.images ?? [])], files: [...(asked.files ?? [])] }),
      });
    } catch (error) {
      this.#slots.release(principal);
      if (claimed) await log.releaseChat(principal, chat.chatId, runId);
      await agent?.close();
      throw error;
    }
    const run = (await log.getRun(runId)) as RunRecord;
    const made = agent;
    const { input, session, images, files } = asked;
    this.#drive(
      run,
      -1,
      undefined,
      async (onEvent, signal) => {
        const stream = made.stream(input, {
          session,
          runId,
          signal,
          ...(images?.length && { images }),
          ...(files?.length && { files }),
        });
        for await (const event of stream) onEvent(event);
        await stream.result;
      },
      made,
    );
    return run;
  }

  /**
   * Applies decisions to the run waiting for them and resumes it; returns the sequence number the
   * continuation starts after. Every decision must name an approval of this principal's run that
   * waits now, and every waiting call must be decided.
   */
  async decide(
    principal: string,
    decisions: readonly Decision[],
    chatId?: string,
  ): Promise<{ run: RunRecord; after: number }> {
    const { log } = this.#o;
    if (decisions.length === 0) throw refuse.invalid("no approval decisions were sent");
    const records = await Promise.all(decisions.map((d) => log.getApproval(d.approvalId)));
    const runIds = new Set(records.map((r) => r?.runId));
    const runId = records[0]?.runId;
    const run = runId === undefined ? undefined : await log.getRun(runId);
    // A foreign or unknown id looks the same as a missing one: nothing tells an attacker it exists.
    if (!run || run.principal !== principal || runIds.size !== 1 || records.some((r) => r === undefined))
      throw refuse.notFound("approval");
    if (chatId !== undefined && run.chatId !== chatId) throw refuse.notFound("approval");
    if (run.status !== "awaiting_approval" || records.some((r) => r?.decided))
      throw refuse.conflict("these approvals were already decided, or the run is no longer waiting");
    const open = await log.openApprovals(run.runId);
    const decided = new Set(decisions.map((d) => d.approvalId));
    const missing = open.filter((a) => !decided.has(a.approvalId));
    if (missing.length > 0 || decided.size !== decisions.length)
      throw refuse.invalid(
        `every waiting call must be decided once: missing ${missing.map((a) => `${a.toolName} (${a.approvalId})`).join(", ") || "none"}`,
      );
    this.#slots.reserve(principal);
    let agent: Agent<unknown, unknown> | undefined;
    try {
      if (!(await log.decide(decisions))) throw refuse.conflict("these approvals were already decided");
      agent = await this.#o.agents.make(run.agent);
    } catch (error) {
      this.#slots.release(principal);
      throw error;
    }
    const byId = new Map(records.map((r) => [r?.approvalId, r]));
    const approve = decisions
      .filter((d) => d.approved)
      .map((d) => byId.get(d.approvalId)?.toolCallId as string);
    const reject = decisions
      .filter((d) => !d.approved)
      .map((d) => byId.get(d.approvalId)?.toolCallId as string);
    const fresh = (await log.getRun(run.runId)) as RunRecord;
    await log.setRunStatus(run.runId, "running");
    const made = agent;
    this.#drive(
      fresh,
      fresh.lastSeq,
      { kind: "resumed", reason: "approval" },
      (onEvent, signal) => made.resume(run.runId, { stream: true, onEvent, signal, approve, reject }),
      made,
    );
    return { run: fresh, after: fresh.lastSeq };
  }

  /** Stops a running run (it ends `aborted`), or discards one waiting for approval. */
  async cancel(principal: string, runId: string): Promise<ServeRunStatus> {
    const { log, hub } = this.#o;
    const run = await log.getRun(runId);
    if (!run || run.principal !== principal) throw refuse.notFound("run");
    const abort = this.#aborts.get(runId);
    if (abort) {
      abort.abort(new Error("cancelled by the client"));
      return "running";
    }
    if (run.status !== "awaiting_approval") return run.status;
    await this.#o.store.discardRun(runId).catch(() => {});
    const channel = hub.open(runId, run.lastSeq);
    const time = Date.now();
    channel.append([
      {
        kind: "event",
        event: { type: "error", runId, time, code: "aborted", message: "cancelled by the client" },
      },
      {
        kind: "event",
        event: {
          type: "run_end",
          runId,
          time,
          status: "aborted",
          usage: run.usage ?? emptyUsage(false),
          messages: [],
        },
      },
    ]);
    await hub.close(channel);
    await log.setRunStatus(runId, "aborted");
    await log.releaseChat(principal, run.chatId, runId);
    return "aborted";
  }

  /**
   * Runs the log says are running, while nothing here drives them: their process stopped. Each is
   * resumed from its last checkpoint, or, when it cannot be, ended as `interrupted` with a reason.
   */
  async recover(): Promise<void> {
    const { log, hub } = this.#o;
    for (const run of await log.listRunning()) {
      if (hub.get(run.runId)) continue;
      const open = await openParts(log, run.runId);
      let agent: Agent<unknown, unknown> | undefined;
      try {
        agent = await this.#o.agents.make(run.agent);
      } catch (error) {
        await this.#interrupt(run, `its agent could not be made: ${(error as Error).message}`);
        continue;
      }
      this.#slots.add(run.principal);
      const made = agent;
      this.#drive(
        run,
        run.lastSeq,
        { kind: "resumed", reason: "restart" },
        (onEvent, signal) => made.resume(run.runId, { stream: true, onEvent, signal }),
        made,
        open,
      );
    }
  }

  /** Waits for every run driven here to settle (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#drivers.size > 0) await Promise.all([...this.#drivers]);
  }

  /** Aborts every run driven here (shutdown: they stay resumable from their checkpoints). */
  abortAll(): void {
    for (const abort of this.#aborts.values()) abort.abort(new Error("the server is stopping"));
  }

  async #interrupt(run: RunRecord, message: string): Promise<void> {
    const { log, hub } = this.#o;
    const channel = hub.open(run.runId, run.lastSeq);
    channel.append([
      ...new EventNormalizer("x", this.#o.redactor, await openParts(log, run.runId)).closeAll(),
      { kind: "interrupted", message },
    ]);
    await hub.close(channel);
    await log.setRunStatus(run.runId, "interrupted");
    await log.releaseChat(run.principal, run.chatId, run.runId);
  }

  #drive(
    run: RunRecord,
    after: number,
    marker: LogItem | undefined,
    go: (onEvent: (event: AgentEvent) => void, signal: AbortSignal) => Promise<unknown>,
    agent: Agent<unknown, unknown>,
    openAtStart: LeftOpen = {},
  ): void {
    const { log, hub, redactor } = this.#o;
    const channel = hub.open(run.runId, after);
    const normalizer = new EventNormalizer(`${after + 1}-`, redactor, openAtStart);
    const abort = new AbortController();
    this.#aborts.set(run.runId, abort);
    let status: RunStatus | undefined;
    let usage = run.usage;
    if (marker) channel.append([...normalizer.closeAll(), marker]);
    const onEvent = (event: AgentEvent) => {
      if (event.type === "run_end") {
        status = event.status;
        usage = event.usage;
      }
      // The normalizer scrubs: deltas as streams (a secret split across two is caught), the rest whole.
      channel.append(normalizer.push(event));
    };
    const driver = (async () => {
      try {
        await go(onEvent, abort.signal);
      } catch (error) {
        if (error instanceof ApprovalRequiredError) await this.#pause(run, channel, normalizer, error);
        else if (status === undefined)
          failBeforeStart(run, channel, normalizer, redactor.text(describe(error)));
      }
      if (status === undefined) status = "failed";
      const final: ServeRunStatus = status;
      await hub.close(channel);
      if (channel.failure !== undefined)
        console.error(`glassloop serve: writing run ${run.runId} to the log failed:`, channel.failure);
      await log.setRunStatus(run.runId, final, usage);
      if (final !== "awaiting_approval") await log.releaseChat(run.principal, run.chatId, run.runId);
    })()
      .catch((error: unknown) => console.error(`glassloop serve: run ${run.runId}:`, error))
      .finally(async () => {
        this.#aborts.delete(run.runId);
        this.#slots.release(run.principal);
        this.#drivers.delete(driver);
        await agent.close().catch(() => {});
      });
    this.#drivers.add(driver);
  }

  async #pause(
    run: RunRecord,
    channel: RunChannel,
    normalizer: EventNormalizer,
    error: ApprovalRequiredError,
  ): Promise<void> {
    const approvals: (ApprovalItem & { validated: string })[] = error.pending.map((p) => ({
      approvalId: `appr_${randomBytes(18).toString("base64url")}`,
      toolCallId: p.toolCallId,
      toolName: p.toolName,
      input: this.#o.redactor.value(parseOutput(p.arguments)),
      validated: p.arguments,
    }));
    await this.#o.log.addApprovals(run.runId, approvals);
    const held = normalizer.takeHeldEnd();
    channel.append([
      { kind: "approval", approvals: approvals.map(({ validated: _v, ...shown }) => shown) },
      ...(held ? [{ kind: "event" as const, event: held }] : []),
    ]);
  }
}
