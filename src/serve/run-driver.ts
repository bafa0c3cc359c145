import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Agent } from "../agent/agent.js";
import type { Redactor } from "../core/redact.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { RunStatus } from "../core/vocabulary/status.js";
import { ApprovalRequiredError } from "../features/approval/approval.js";
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
  return `${hostname()}/${process.pid}/${randomBytes(6).toString("base64url")}`;
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
  readonly #aborts = new Map<string, AbortController>();
  readonly #drivers = new Set<Promise<void>>();

  constructor(options: RunDriverOptions) {
    this.#o = options;
  }

  /** When a claim made now runs out. */
  leaseUntil(): number {
    return Date.now() + this.#o.leaseMs;
  }

  /** Whether this process drives `runId` now. */
  has(runId: string): boolean {
    return this.#aborts.has(runId);
  }

  /** Stops a run driven here (it ends `aborted`); false when it is not driven here. */
  abort(runId: string, reason: string): boolean {
    const abort = this.#aborts.get(runId);
    abort?.abort(new Error(reason));
    return abort !== undefined;
  }

  /** Aborts every run driven here. */
  abortAll(reason: string): void {
    for (const abort of this.#aborts.values()) abort.abort(new Error(reason));
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
      await hub.close(channel, async () => {
        if (channel.failure !== undefined)
          console.error(`glassloop serve: writing run ${run.runId} to the log failed:`, channel.failure);
        // The chat is freed first: once another process reads the status, it may start the next turn.
        if (final !== "awaiting_approval") await log.releaseChat(run.principal, run.chatId, run.runId);
        await log.setRunStatus(run.runId, final, usage);
      });
    })()
      .catch((error: unknown) => console.error(`glassloop serve: run ${run.runId}:`, error))
      .finally(async () => {
        this.#aborts.delete(run.runId);
        this.#o.slots.release(run.principal);
        this.#drivers.delete(driver);
        await agent.close().catch(() => {});
      });
    this.#drivers.add(driver);
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
    await this.#o.log.addApprovals(run.runId, approvals);
    const held = normalizer.takeHeldEnd();
    channel.append([
      { kind: "approval", approvals: approvals.map(({ validated: _v, ...shown }) => shown) },
      ...(held ? [{ kind: "event" as const, event: held }] : []),
    ]);
  }
}
