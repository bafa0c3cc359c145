import { randomUUID } from "node:crypto";
import type { Agent } from "../agent/agent.js";
import type { Redactor } from "../core/redact.js";
import type { Store } from "../store/store.js";
import type { AgentTable } from "./agents.js";
import { checkDecisions, type Decision } from "./approval-check.js";
import { attachmentNotes } from "./attachments.js";
import { refuse } from "./errors.js";
import { checkAnswers, type GivenAnswer } from "./questions.js";
import { endWaitingRun } from "./run-closing.js";
import { RunDriver } from "./run-driver.js";
import type { RunHub } from "./run-hub.js";
import { RunRecovery } from "./run-recovery.js";
import { RunSlots } from "./run-slots.js";
import type { ChatRecord, RunRecord, ServeLog, ServeRunStatus } from "./serve-log.js";
import { type Turn, turnSession } from "./turn-session.js";

/** What the run manager needs from the handler. */
export interface RunManagerOptions {
  log: ServeLog;
  hub: RunHub;
  agents: AgentTable;
  store: Store;
  redactor: Redactor;
  /** Most runs one principal may have running at once. */
  maxActiveRuns: number;
  /** How long this process's claim on a run it drives holds unless renewed (ms). */
  leaseMs: number;
}

/**
 * Starts, continues and stops runs for HTTP callers, each a durable glassloop run on the store,
 * and writes what they emit to the serve log. A run goes on when its HTTP response closes; only
 * `cancel` (or the run's own limits) stops it. Several processes may share the log: any of them
 * takes approvals and cancels for any run, and the runs of one that died are taken over.
 */
export class RunManager {
  readonly #o: RunManagerOptions;
  readonly #slots: RunSlots;
  readonly #driver: RunDriver;
  readonly #recovery: RunRecovery;

  constructor(options: RunManagerOptions) {
    this.#o = options;
    this.#slots = new RunSlots(options.maxActiveRuns);
    const { log, hub, redactor, agents, leaseMs, store } = options;
    this.#driver = new RunDriver({ log, hub, redactor, slots: this.#slots, store, leaseMs });
    this.#recovery = new RunRecovery({
      log,
      store,
      agents,
      driver: this.#driver,
      slots: this.#slots,
      leaseMs,
    });
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
        driver: this.#driver.id,
        leaseUntil: this.#driver.leaseUntil(),
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
    this.#driver.drive(
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
    // A foreign or unknown id looks the same as a missing one: nothing tells an attacker it exists.
    const { run, records } = await checkDecisions(log, principal, decisions, chatId);
    this.#slots.reserve(principal);
    let agent: Agent<unknown, unknown> | undefined;
    try {
      if (!(await log.decide(decisions))) throw refuse.conflict("these approvals were already decided");
      agent = await this.#o.agents.make(run.agent);
    } catch (error) {
      this.#slots.release(principal);
      throw error;
    }
    const byId = new Map(records.map((r) => [r.approvalId, r]));
    const approve = decisions
      .filter((d) => d.approved)
      .map((d) => byId.get(d.approvalId)?.toolCallId as string);
    const reject = decisions
      .filter((d) => !d.approved)
      .map((d) => byId.get(d.approvalId)?.toolCallId as string);
    // The decisions are recorded (one process won them): this one drives the run on.
    await log.driveRun(run.runId, this.#driver.id, this.#driver.leaseUntil());
    const fresh = (await log.getRun(run.runId)) as RunRecord;
    const made = agent;
    this.#driver.drive(
      fresh,
      fresh.lastSeq,
      { kind: "resumed", reason: "approval" },
      (onEvent, signal) => made.resume(run.runId, { stream: true, onEvent, signal, approve, reject }),
      made,
    );
    return { run: fresh, after: fresh.lastSeq };
  }

  /**
   * Resumes a run paused on tools' questions with the person's answers (checkAnswers: the
   * caller's run, every waiting question once, each answer fitting its form); returns the
   * sequence number the continuation starts after.
   */
  async answer(
    principal: string,
    runId: string,
    answers: readonly GivenAnswer[],
  ): Promise<{ run: RunRecord; after: number }> {
    const { log } = this.#o;
    const { run, byCall } = await checkAnswers(log, principal, runId, answers);
    this.#slots.reserve(principal);
    let agent: Agent<unknown, unknown> | undefined;
    try {
      // Once only, as for approvals: two replicas racing get one 202 and one 409.
      const taken = await log.decide(answers.map((a) => ({ approvalId: a.questionId, approved: true })));
      if (!taken) throw refuse.conflict("these questions were already answered");
      agent = await this.#o.agents.make(run.agent);
    } catch (error) {
      this.#slots.release(principal);
      throw error;
    }
    await log.driveRun(run.runId, this.#driver.id, this.#driver.leaseUntil());
    const fresh = (await log.getRun(run.runId)) as RunRecord;
    const made = agent;
    this.#driver.drive(
      fresh,
      fresh.lastSeq,
      { kind: "resumed", reason: "answer" },
      (onEvent, signal) => made.resume(run.runId, { stream: true, onEvent, signal, answers: byCall }),
      made,
    );
    return { run: fresh, after: fresh.lastSeq };
  }

  /**
   * Stops a running run (it ends `aborted`), wherever it is driven: here at once, in another
   * process through the log. A run waiting for approval is discarded.
   */
  async cancel(principal: string, runId: string): Promise<ServeRunStatus> {
    const { log, hub } = this.#o;
    const run = await log.getRun(runId);
    if (!run || run.principal !== principal) throw refuse.notFound("run");
    if (this.#driver.abort(runId, "cancelled by the client")) return "running";
    if (run.status === "running") {
      await log.requestCancel(runId);
      return "running";
    }
    if (run.status !== "awaiting_approval") return run.status;
    await this.#o.store.discardRun(runId).catch(() => {});
    return endWaitingRun(hub, log, principal, run);
  }

  /** Another process asked (through the log's notice) to stop a run: stops it if it is driven here. */
  cancelled(runId: string): void {
    this.#driver.abort(runId, "cancelled by the client");
  }

  /** Another process handed a run over (through the log's notice): takes it over now if this one may. */
  released(): void {
    this.#recovery.poke();
  }

  /**
   * Keeps this process's leases from now until `stop`; with `recover`, also takes over the runs
   * dead processes left running (resumed from their last checkpoints, or reported), now and
   * whenever another process dies.
   */
  async start(recover: boolean): Promise<void> {
    this.#recovery.start(recover);
    if (recover) await this.#recovery.recover();
  }

  /** Waits for every run driven here to settle (tests, shutdown). */
  async settled(): Promise<void> {
    await this.#driver.settled();
  }

  /**
   * Drains: takes over no more runs, and hands every run driven here over to the other processes
   * (each at its next step, or at once after `withinMs`); then stops renewing leases. A run with
   * no other process alive stays resumable: the next process on the log resumes it.
   */
  async drain(withinMs: number): Promise<void> {
    this.#recovery.drain();
    await this.#driver.handOverAll(withinMs);
    await this.#recovery.stop();
  }

  /** A drain in progress hands its runs over now instead of at their next steps. */
  hurry(): void {
    this.#driver.hurry();
  }

  /** Stops watching for other processes' runs and hands every run driven here over at once (shutdown). */
  async stop(): Promise<void> {
    await this.drain(0);
  }
}
