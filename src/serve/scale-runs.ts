import { randomUUID } from "node:crypto";
import type { Redactor } from "../core/redact.js";
import type { ScaleClient } from "../scale/client.js";
import type { ScaleConnection } from "../scale/worker.js";
import type { AgentTable } from "./agents.js";
import type { Decision } from "./approval-check.js";
import { attachmentNotes } from "./attachments.js";
import { refuse, ServeRequestError } from "./errors.js";
import type { GivenAnswer } from "./questions.js";
import { endWaitingRun } from "./run-closing.js";
import type { RunHub } from "./run-hub.js";
import { RunSlots } from "./run-slots.js";
import { ScaleFollower } from "./scale-follow.js";
import { recoverScaleRuns } from "./scale-recovery.js";
import { answerOnWorker, decideOnWorker, type ReplyContext } from "./scale-replies.js";
import { FIRST_SEGMENT } from "./scale-segment.js";
import { scaleTurnSession } from "./scale-turn.js";
import type { ChatRecord, RunRecord, ServeLog, ServeRunStatus } from "./serve-log.js";
import type { ServeRuns } from "./serve-runs.js";
import type { Turn } from "./turn-session.js";

/**
 * `createHandler({ scale })`: run every turn on scale-out workers (`glassloop worker`, DBOS on
 * Postgres) instead of in this process. A connected `ScaleClient` (the handler leaves it open),
 * or where to connect one (the handler closes it).
 */
export type ServeScaleOptions = (
  | { client: ScaleClient }
  | (ScaleConnection & {
      /** The queue the workers consume (default `glassloop`). */
      queue?: string;
    })
) & {
  /** How often a run whose worker wrote nothing new is read again (ms, default 100). */
  pollMs?: number;
};

/** What the scale run manager needs from the handler. */
export interface ScaleRunManagerOptions {
  log: ServeLog;
  hub: RunHub;
  agents: AgentTable;
  redactor: Redactor;
  maxActiveRuns: number;
  leaseMs: number;
  scale: ServeScaleOptions;
}

/**
 * Starts, continues and stops runs on scale-out workers for HTTP callers. A turn is enqueued as a
 * DBOS workflow (its id the serve run id, its session the chat's), and this process follows it:
 * the worker's events become the run's items in the serve log (`ScaleFollower`), so streams,
 * reconnects, the glass and ownership work exactly as for runs driven here. Decisions and answers
 * travel to the waiting worker through the client, bound to the exact wait (scale-replies.ts); a
 * cancel cancels the workflow.
 * The follower holds a lease on the run in the log: when this process stops or dies, another one
 * (or the next start) follows the run on from the log's last item. The worker never notices.
 */
export class ScaleRunManager implements ServeRuns {
  readonly #o: ScaleRunManagerOptions;
  readonly #slots: RunSlots;
  readonly #client: Promise<ScaleClient>;
  readonly #ownsClient: boolean;
  #follower: ScaleFollower | undefined;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;
  #stopping: Promise<void> | undefined;
  #unlisten: Promise<() => Promise<void>> | undefined;
  #recover = false;

  constructor(options: ScaleRunManagerOptions) {
    this.#o = options;
    this.#slots = new RunSlots(options.maxActiveRuns);
    const scale = options.scale;
    this.#ownsClient = !("client" in scale);
    this.#client =
      "client" in scale
        ? Promise.resolve(scale.client)
        : import("../scale/client.js").then(({ ScaleClient }) => {
            const { pollMs: _p, ...connection } = scale;
            return ScaleClient.connect(connection);
          });
    // Reported through `ready` (start) and each request; not an unhandled rejection meanwhile.
    this.#client.catch(() => {});
  }

  async #followerReady(): Promise<ScaleFollower> {
    const client = await this.#client.catch((error: unknown) => {
      throw new ServeRequestError(
        503,
        "unavailable",
        `the scale-out workers' database cannot be reached: ${(error as Error).message}`,
      );
    });
    if (this.#follower) return this.#follower;
    const follower = new ScaleFollower({
      log: this.#o.log,
      hub: this.#o.hub,
      redactor: this.#o.redactor,
      slots: this.#slots,
      client,
      pollMs: this.#o.scale.pollMs ?? 100,
      leaseMs: this.#o.leaseMs,
    });
    this.#follower = follower;
    // The workers announce their writes: a follower reads at once, and polls an idle run slowly.
    this.#unlisten = client
      .listen((runIds) => follower.noticed(runIds))
      .then(
        (stop) => {
          follower.notices = true;
          return stop;
        },
        (error: unknown) => {
          console.error(
            "glassloop serve: listening for the workers' events failed (runs are polled):",
            error,
          );
          return async () => {};
        },
      );
    return follower;
  }

  async startTurn(principal: string, chat: ChatRecord, turn: Turn): Promise<RunRecord> {
    const { log, agents } = this.#o;
    const follower = await this.#followerReady();
    const client = await this.#client;
    this.#slots.reserve(principal);
    const runId = `run_${randomUUID()}`;
    let claimed = false;
    let created = false;
    try {
      // The agent must be served here too (its name, its model for the run's record): one module
      // can be both the serve module and the worker module.
      const { model } = await agents.info(chat.agent);
      if (!(await log.claimChat(principal, chat.chatId, runId)))
        throw refuse.conflict("this chat already has a run in progress; wait for it, or cancel it");
      claimed = true;
      const asked = await scaleTurnSession({ log, client }, principal, chat, runId, turn);
      const { input, session, images, files } = asked;
      await log.createRun({
        runId,
        principal,
        chatId: chat.chatId,
        agent: chat.agent,
        model,
        input,
        session,
        ...(turn.replaces && { replaces: turn.replaces.runId }),
        ...(turn.messageId !== undefined && { messageId: turn.messageId }),
        attachments: attachmentNotes({ images: [...(images ?? [])], files: [...(files ?? [])] }),
        driver: follower.id,
        leaseUntil: follower.leaseUntil(),
      });
      created = true;
      // The session's history lives in the workers' store: the worker loads it, never the client's copy.
      // The files were checked where every message is read (`AttachmentRules`, under the body cap):
      // they travel in the workflow's input, and the worker's agent checks them once more.
      await client.enqueue(chat.agent, input, {
        runId,
        session,
        stream: true,
        // A tool's question pauses the run on its worker; the follower shows it (questions: "wait").
        ...(images?.length && { images }),
        ...(files?.length && { files }),
      });
    } catch (error) {
      this.#slots.release(principal);
      if (created) await log.setRunStatus(runId, "failed").catch(() => {});
      if (claimed) await log.releaseChat(principal, chat.chatId, runId);
      if (error instanceof ServeRequestError || !created) throw error;
      throw new ServeRequestError(503, "unavailable", "the run could not be enqueued for the workers");
    }
    const run = (await log.getRun(runId)) as RunRecord;
    follower.follow(run, FIRST_SEGMENT);
    return run;
  }

  async decide(
    principal: string,
    decisions: readonly Decision[],
    chatId?: string,
  ): Promise<{ run: RunRecord; after: number }> {
    return decideOnWorker(await this.#replies(), principal, decisions, chatId);
  }

  /** Answers the questions a run waits for on its worker, and follows it on (scale-replies.ts). */
  async answer(
    principal: string,
    runId: string,
    answers: readonly GivenAnswer[],
  ): Promise<{ run: RunRecord; after: number }> {
    return answerOnWorker(await this.#replies(), principal, runId, answers);
  }

  async #replies(): Promise<ReplyContext> {
    const follower = await this.#followerReady();
    return { log: this.#o.log, slots: this.#slots, follower, client: await this.#client };
  }

  async cancel(principal: string, runId: string): Promise<ServeRunStatus> {
    const { log, hub } = this.#o;
    const run = await log.getRun(runId);
    if (!run || run.principal !== principal) throw refuse.notFound("run");
    if (run.status !== "running" && run.status !== "awaiting_approval") return run.status;
    const client = await this.#client;
    await client.cancel(runId);
    if (run.status === "running") {
      // Followed here: it ends now. Elsewhere: the log tells its follower (which also sees the
      // workflow cancelled on its next read).
      if (!this.#follower?.stop(runId, "cancel")) await log.requestCancel(runId);
      return "running";
    }
    return endWaitingRun(hub, log, principal, run);
  }

  cancelled(runId: string): void {
    this.#follower?.stop(runId, "cancel");
  }

  async start(recover: boolean): Promise<void> {
    await this.#followerReady();
    if (this.#stopped) return;
    this.#recover = recover;
    this.#timer = setInterval(() => this.#poke(), Math.max(10, Math.floor(this.#o.leaseMs / 4)));
    this.#timer.unref();
    if (recover) await recoverScaleRuns(this.#o.log, this.#follower, this.#slots, () => this.#stopped);
  }

  async settled(): Promise<void> {
    await this.#follower?.settled();
  }

  /** The runs go on on their workers: draining hands each over at once (nothing waits for a step here). */
  async drain(): Promise<void> {
    await this.stop();
  }

  /** Nothing waits in a drain here: following stops at once. */
  hurry(): void {}

  /** Another process handed a run over (a notice): look for runs to follow now, not at the next tick. */
  released(): void {
    this.#poke();
  }

  async stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#stopped = true;
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = undefined;
      await this.#ticking;
      const follower = this.#follower;
      if (follower) {
        // Each run is released in the log as its follower stops: another process follows it at once.
        follower.stopAll();
        await follower.settled();
      }
      await (await this.#unlisten)?.();
      if (this.#ownsClient) await (await this.#client.catch(() => undefined))?.close();
    })();
    return this.#stopping;
  }

  #poke(): void {
    if (this.#stopped || !this.#timer) return;
    this.#ticking ??= this.#tick().finally(() => {
      this.#ticking = undefined;
    });
  }

  /**
   * Renews the leases of the runs followed here; stops following those the log names another
   * follower for (taken over while this process stalled) and those a client cancelled elsewhere;
   * then, with `recover`, follows on the runs whose follower is gone.
   */
  async #tick(): Promise<void> {
    const follower = this.#follower;
    if (!follower || this.#stopped) return;
    try {
      const { log } = this.#o;
      const { cancelled, lost } = await log.renewLeases(
        follower.id,
        follower.leaseUntil(),
        follower.runIds(),
      );
      for (const runId of lost) follower.stop(runId, "lost");
      for (const runId of cancelled) follower.stop(runId, "cancel");
      if (this.#recover)
        await recoverScaleRuns(this.#o.log, this.#follower, this.#slots, () => this.#stopped);
    } catch (error) {
      console.error("glassloop serve: renewing leases or taking over runs failed:", error);
    }
  }
}
