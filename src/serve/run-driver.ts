import { randomBytes } from "node:crypto";
import type { Agent } from "../agent/agent.js";
import { RunSuspendedError } from "../core/errors.js";
import { InputRequiredError } from "../core/questions.js";
import type { Redactor } from "../core/redact.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { RunStatus } from "../core/vocabulary/status.js";
import { ApprovalRequiredError } from "../features/approval/approval.js";
import { ownerHost } from "../store/owner.js";
import type { Store } from "../store/store.js";
import type { ApprovalItem, LogItem } from "./log-items.js";
import { EventNormalizer, type LeftOpen } from "./normalize.js";
import { questionItems } from "./questions.js";
import type { RunChannel } from "./run-channel.js";
import { describe, failBeforeStart, openParts } from "./run-closing.js";
import { type Drive, handOver } from "./run-handover.js";
import type { RunHub } from "./run-hub.js";
import type { RunSlots } from "./run-slots.js";
import type { RunRecord, ServeLog, ServeRunStatus } from "./serve-log.js";
import { parseOutput } from "./tool-output.js";

/** What a driver needs from the handler. */
export interface RunDriverOptions {
  log: ServeLog;
  hub: RunHub;
  redactor: Redactor;
  slots: RunSlots;
  /** The store the runs checkpoint into: a run handed over gives up its claim there too. */
  store: Store;
  /** How long a claim on a run holds without renewal (ms). */
  leaseMs: number;
}

/** Runs one glassloop run (a new turn, a resume) and reports its events; rejects as the run does. */
export type RunGo = (onEvent: (event: AgentEvent) => void, signal: AbortSignal) => Promise<unknown>;

/**
 * A process's name in the log, as the driver of its runs: `<host>/<pid>/<random>`, so another
 * process on the same host can tell at once that it died, and two handlers in one process differ.
 */
export function newDriverId(): string {
  return `${ownerHost()}/${process.pid}/${randomBytes(6).toString("base64url")}`;
}

/**
 * Drives runs in this process: each run's events go through the normalizer (which scrubs them)
 * into its channel, a pause for approval becomes approval items, and the end is recorded in the
 * log. Knows which runs it drives and can stop them.
 */
export class RunDriver {
  /** This process's name in the log (see `newDriverId`). */
  readonly id = newDriverId();
  readonly #o: RunDriverOptions;
  readonly #drives = new Map<string, Drive>();
  readonly #drivers = new Set<Promise<void>>();
  /** Ends a drain's wait for the next steps early (`hurry`). */
  #hurry: (() => void) | undefined;

  constructor(options: RunDriverOptions) {
    this.#o = options;
  }

  /** When a claim made now runs out. */
  leaseUntil(): number {
    return Date.now() + this.#o.leaseMs;
  }

  /** Whether this process drives `runId` now. */
  has(runId: string): boolean {
    return this.#drives.has(runId);
  }

  /** The runs driven here now. */
  runIds(): string[] {
    return [...this.#drives.keys()];
  }

  /** Stops a run driven here (it ends `aborted`); false when it is not driven here. */
  abort(runId: string, reason: string): boolean {
    const drive = this.#drives.get(runId);
    drive?.abort.abort(new Error(reason));
    return drive !== undefined;
  }

  /**
   * Another process drives `runId` now (this one's lease ran out and it was taken over): stops
   * it here at once and writes nothing more of it, neither items nor its end (self-fencing).
   */
  lost(runId: string): void {
    const drive = this.#drives.get(runId);
    if (drive?.state !== "driving") return;
    drive.state = "lost";
    drive.channel.seal();
    // Suspended, not aborted: no end is recorded here, whatever the store's fence has seen yet.
    drive.abort.abort(new RunSuspendedError("another server process took this run over"));
  }

  /** Every run driven here is lost (the log could not be reached while the leases ran out). */
  loseAll(): void {
    for (const runId of this.runIds()) this.lost(runId);
  }

  /**
   * Hands every run driven here over to the other processes (a drain): each stops at its next
   * step, or at once when `withinMs` has passed, and its claims in the store and the log are
   * released, so another process resumes it from its last checkpoint. Settles when every run
   * driven here has stopped (or paused, or ended on its own meanwhile).
   */
  async handOverAll(withinMs: number): Promise<void> {
    for (const drive of this.#drives.values()) drive.atNextStep = true;
    if (withinMs > 0 && this.#drives.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.settled(),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, withinMs);
          this.#hurry = resolve;
        }),
      ]);
      clearTimeout(timer);
      this.#hurry = undefined;
    }
    await Promise.all([...this.#drives.values()].map((drive) => this.#handOver(drive)));
    await this.settled();
  }

  /** Waits for every run driven here to settle (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#drivers.size > 0) await Promise.all([...this.#drivers]);
  }

  /**
   * Drives `run` from sequence `after`: `marker` (a resume) first, then what `go` emits. The
   * principal's slot (taken by the caller) is released and `agent` closed when the run settles.
   */
  drive(
    run: RunRecord,
    after: number,
    marker: LogItem | undefined,
    go: RunGo,
    agent: Agent<unknown, unknown>,
    openAtStart: LeftOpen = {},
  ): void {
    const { log, hub, redactor } = this.#o;
    const channel = hub.open(run.runId, after, this.id, () => this.lost(run.runId));
    const normalizer = new EventNormalizer(`${after + 1}-`, redactor, openAtStart);
    const abort = new AbortController();
    let stop = () => {};
    const drive: Drive = {
      run,
      abort,
      channel,
      state: "driving",
      atNextStep: false,
      stopped: new Promise<void>((resolve) => {
        stop = resolve;
      }),
    };
    this.#drives.set(run.runId, drive);
    let status: RunStatus | undefined;
    let usage = run.usage;
    if (marker) channel.append([...normalizer.closeAll(), marker]);
    const onEvent = (event: AgentEvent) => {
      if (drive.state === "lost") return;
      if (event.type === "run_end") {
        status = event.status;
        usage = event.usage;
      }
      // The last step's results are checkpointed: the next process starts this step afresh.
      if (drive.atNextStep && event.type === "step_start") void this.#handOver(drive);
      // The normalizer scrubs: deltas as streams (a secret split across two is caught), the rest whole.
      channel.append(normalizer.push(event));
    };
    const driver = (async () => {
      let failure: unknown;
      let failed = false;
      try {
        await go(onEvent, abort.signal);
      } catch (error) {
        failed = true;
        failure = error;
      }
      stop();
      // Handed over, or taken over: its end belongs to the next driver.
      if (drive.state === "handing-over" && (await drive.handedOver)) drive.state = "lost";
      if (drive.state === "lost") {
        await hub.abandon(channel);
        // Stopped here without a hand-over (another process took it, or this one could not renew):
        // if the log still names this process, free the run now rather than when its lease ends.
        if (!drive.handedOver) await log.releaseRun(run.runId, this.id).catch(() => false);
        return;
      }
      if (failed) {
        if (failure instanceof ApprovalRequiredError) await this.#pause(run, channel, normalizer, failure);
        else if (failure instanceof InputRequiredError) await this.#ask(run, channel, normalizer, failure);
        else if (status === undefined)
          failBeforeStart(run, channel, normalizer, redactor.text(describe(failure)));
      }
      if (status === undefined) status = "failed";
      const final: ServeRunStatus = status;
      await hub.close(channel, async () => {
        if (channel.failure !== undefined)
          console.error(`glassloop serve: writing run ${run.runId} to the log failed:`, channel.failure);
        // The chat is freed first: once another process reads the status, it may start the next turn.
        // Both writes are fenced: a process that lost the run records nothing of its end.
        if (final !== "awaiting_approval")
          await log.releaseChat(run.principal, run.chatId, run.runId, this.id);
        await log.setRunStatus(run.runId, final, usage, this.id);
      });
    })()
      .catch((error: unknown) => console.error(`glassloop serve: run ${run.runId}:`, error))
      .finally(async () => {
        stop();
        this.#drives.delete(run.runId);
        this.#o.slots.release(run.principal);
        this.#drivers.delete(driver);
        await agent.close().catch(() => {});
      });
    this.#drivers.add(driver);
  }

  /** A drain in progress stops waiting for the runs' next steps: they are handed over now. */
  hurry(): void {
    this.#hurry?.();
  }

  #handOver(drive: Drive): Promise<boolean> {
    return handOver(drive, { log: this.#o.log, store: this.#o.store, driverId: this.id });
  }

  /** Ends a run that cannot go on (its agent cannot be made again) as `interrupted`, with the reason. */
  async interrupt(run: RunRecord, message: string): Promise<void> {
    const { log, hub } = this.#o;
    const channel = hub.open(run.runId, run.lastSeq);
    channel.append([
      ...new EventNormalizer("x", this.#o.redactor, await openParts(log, run.runId)).closeAll(),
      { kind: "interrupted", message },
    ]);
    await hub.close(channel, async () => {
      await log.releaseChat(run.principal, run.chatId, run.runId);
      await log.setRunStatus(run.runId, "interrupted");
    });
  }

  /** The run paused on a tool's question: its questions get ids in the log and go to the stream. */
  async #ask(run: RunRecord, channel: RunChannel, normalizer: EventNormalizer, error: InputRequiredError) {
    const { rows, shown } = questionItems(error.pending, this.#o.redactor);
    await this.#o.log.addApprovals(run.runId, rows, this.id);
    const held = normalizer.takeHeldEnd();
    channel.append([
      { kind: "question", questions: shown },
      ...(held ? [{ kind: "event" as const, event: held }] : []),
    ]);
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
    await this.#o.log.addApprovals(run.runId, approvals, this.id);
    const held = normalizer.takeHeldEnd();
    channel.append([
      { kind: "approval", approvals: approvals.map(({ validated: _v, ...shown }) => shown) },
      ...(held ? [{ kind: "event" as const, event: held }] : []),
    ]);
  }
}
