import { randomBytes } from "node:crypto";
import type { Agent } from "../agent/agent.js";
import type { Redactor } from "../core/redact.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { RunStatus } from "../core/vocabulary/status.js";
import { ApprovalRequiredError } from "../features/approval/approval.js";
import { currentOwner, ownerHost } from "../store/owner.js";
import type { Store } from "../store/store.js";
import type { ApprovalItem, LogItem } from "./log-items.js";
import { EventNormalizer, type LeftOpen } from "./normalize.js";
import { describe, failBeforeStart, openParts } from "./run-closing.js";
import type { RunChannel, RunHub } from "./run-hub.js";
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

/** How long a run handed over mid-step may take to stop before its claim in the log is released anyway. */
const STOP_WAIT_MS = 2_000;

/** One run driven here. */
interface Drive {
  run: RunRecord;
  abort: AbortController;
  channel: RunChannel;
  /** `driving`; `handing-over`: stopping so another process takes it; `lost`: another process took it. */
  state: "driving" | "handing-over" | "lost";
  /** Hand the run over at its next step instead of running that step (a drain). */
  atNextStep: boolean;
  /** Settles when the run stopped here (its events are all handled). */
  stopped: Promise<void>;
  /** Settles when a hand-over is done: the log no longer names this process. */
  handedOver?: Promise<void>;
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
    drive.abort.abort(new Error("another server process took this run over"));
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
      if (drive.state !== "driving") return;
      if (drive.atNextStep && event.type === "step_start") {
        // The last step's results are checkpointed: the next process starts this step afresh.
        void this.#handOver(drive);
        return;
      }
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
        if (drive.state !== "driving") {
          // Stopped to be handed over, or taken over: its end belongs to the next driver.
        } else if (error instanceof ApprovalRequiredError) await this.#pause(run, channel, normalizer, error);
        else if (status === undefined)
          failBeforeStart(run, channel, normalizer, redactor.text(describe(error)));
      }
      stop();
      if (drive.state !== "driving") {
        await drive.handedOver;
        await hub.abandon(channel);
        return;
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

  /**
   * Hands one run over: no more of its items are taken, what was taken is written, its claim in
   * the store is given up (so the run's own later checkpoints are refused), the run is stopped,
   * and then its claim in the log is released, announced, for another process to take at once.
   */
  #handOver(drive: Drive): Promise<void> {
    if (drive.handedOver) return drive.handedOver;
    if (drive.state !== "driving") return Promise.resolve();
    drive.state = "handing-over";
    const { log, store } = this.#o;
    const runId = drive.run.runId;
    drive.handedOver = (async () => {
      drive.channel.seal();
      await drive.channel.flushed();
      await store.releaseRun?.(runId, currentOwner()).catch((error: unknown) => {
        console.error(`glassloop serve: releasing run ${runId} in the store failed:`, error);
      });
      drive.abort.abort(new Error("the server is stopping; another process continues this run"));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        drive.stopped,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, STOP_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
      await log.releaseRun(runId, this.id).catch((error: unknown) => {
        // Its lease runs out instead: another process takes the run then.
        console.error(`glassloop serve: releasing run ${runId} in the log failed:`, error);
      });
    })();
    return drive.handedOver;
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
