import type { Redactor } from "../core/redact.js";
import type { ScaleClient } from "../scale/client.js";
import { LeaseLostError } from "./errors.js";
import type { LogItem } from "./log-items.js";
import { EventNormalizer } from "./normalize.js";
import type { RunChannel } from "./run-channel.js";
import { endMessage, endUnended } from "./run-closing.js";
import { newDriverId } from "./run-driver.js";
import type { RunHub } from "./run-hub.js";
import type { RunSlots } from "./run-slots.js";
import { type FollowState, recordPause, track, workerWait } from "./scale-pause.js";
import type { ScaleSegment } from "./scale-segment.js";
import type { RunRecord, ServeLog, ServeRunStatus } from "./serve-log.js";

/** What a follower needs from the handler. */
export interface ScaleFollowerOptions {
  log: ServeLog;
  hub: RunHub;
  redactor: Redactor;
  slots: RunSlots;
  client: ScaleClient;
  /** How long to wait between reads of a run whose worker wrote nothing new (ms). */
  pollMs: number;
  /** How long a claim on a run holds without renewal (ms). */
  leaseMs: number;
}

/**
 * Why a follower stops before its run's end: a client cancelled it, this process is stopping (it
 * hands the run over), or the log names another follower now (it took the run over).
 */
type StopReason = "cancel" | "stop" | "lost";

/**
 * With notices of the workers' writes: how long after a run's last event its follower still polls
 * every `pollMs` (a wait for approval, or the end, is not announced, and follows an event closely),
 * and how often after that (a notice wakes it at once; this covers one lost on the way).
 */
const QUIET_AFTER_MS = 2_000;
const QUIET_POLL_MS = 1_000;

/** DBOS statuses after which a run writes no more events. */
const ENDED = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/** How a segment ended: the run's end (with the status the log records), a pause, or this process stopped. */
type Ending = { kind: "end"; status: ServeRunStatus } | { kind: "paused" } | { kind: "left" };

/**
 * Mirrors runs on scale-out workers into the serve log, one segment at a time: reads the worker's
 * events after a position (`client.readEvents`), puts each through the normalizer (the one place
 * the server scrubs secrets and shapes parts) into the run's channel, so the log numbers the
 * items and every client, here or on another server, reads them as it reads a local run's. A
 * call waiting for approval on the worker (`client.pending`) becomes approval items and a pause;
 * a cancelled run ends `aborted`. A worker that dies changes nothing here: its replacement
 * replays the run and writes the events it had not written under the same positions.
 */
export class ScaleFollower {
  /** This process's name in the log, as the follower of its runs (see `newDriverId`). */
  readonly id = newDriverId();
  readonly #o: ScaleFollowerOptions;
  readonly #aborts = new Map<string, AbortController>();
  readonly #running = new Set<Promise<void>>();
  /** Ends the wait of a follower between reads, by run. */
  readonly #wakers = new Map<string, () => void>();
  /** Runs noticed while their follower was not waiting (it was reading): its next wait ends at once. */
  readonly #noticed = new Set<string>();
  /** Whether the workers' writes are announced to this process (`noticed`): idle runs are polled slowly. */
  notices = false;

  constructor(options: ScaleFollowerOptions) {
    this.#o = options;
  }

  /** When a claim made now runs out. */
  leaseUntil(): number {
    return Date.now() + this.#o.leaseMs;
  }

  /** Whether this process follows `runId` now. */
  has(runId: string): boolean {
    return this.#aborts.has(runId);
  }

  /** The runs this process follows now (whose leases it renews). */
  runIds(): string[] {
    return [...this.#aborts.keys()];
  }

  /**
   * Stops following `runId`: with `cancel`, its stream ends `aborted`; with `stop`, it is handed
   * over (released in the log); with `lost`, it is left alone. False when it is not followed here.
   */
  stop(runId: string, reason: StopReason): boolean {
    const abort = this.#aborts.get(runId);
    abort?.abort(reason);
    return abort !== undefined;
  }

  /** Stops following every run and hands each over (shutdown): they go on on their workers, for another process to follow. */
  stopAll(): void {
    for (const abort of this.#aborts.values()) abort.abort("stop" satisfies StopReason);
  }

  /** Workers wrote events of `runIds` (empty: of any run): their followers read now. */
  noticed(runIds: readonly string[]): void {
    const ids = runIds.length === 0 ? [...this.#aborts.keys()] : runIds;
    for (const runId of ids) {
      const wake = this.#wakers.get(runId);
      if (wake) wake();
      else if (this.#aborts.has(runId)) this.#noticed.add(runId);
    }
  }

  /** Waits for every follower to settle. */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }

  /** Follows `run` through `segment`; the principal's slot (taken by the caller) is released at the end. */
  follow(run: RunRecord, segment: ScaleSegment): void {
    const abort = new AbortController();
    this.#aborts.set(run.runId, abort);
    const running = this.#follow(run, segment, abort.signal)
      .catch((error: unknown) => console.error(`glassloop serve: following run ${run.runId}:`, error))
      .finally(() => {
        if (this.#aborts.get(run.runId) === abort) this.#aborts.delete(run.runId);
        this.#noticed.delete(run.runId);
        this.#o.slots.release(run.principal);
        this.#running.delete(running);
      });
    this.#running.add(running);
  }

  async #follow(run: RunRecord, segment: ScaleSegment, signal: AbortSignal): Promise<void> {
    const { log, hub, redactor } = this.#o;
    // Fenced: once the log names another follower (it took the run over), nothing more is written.
    const channel = hub.open(run.runId, run.lastSeq, this.id, () => this.stop(run.runId, "lost"));
    const normalizer = new EventNormalizer(`${segment.start}-`, redactor);
    // A segment taken over is made again from its first event: what the log holds is skipped.
    // Each event's items are appended (and so written) together, so the count ends on an event.
    let skip = segment.stored;
    const put = (items: LogItem[]) => {
      const n = Math.min(skip, items.length);
      skip -= n;
      channel.append(n === 0 ? items : items.slice(n));
    };
    if (segment.marker) put([segment.marker]);
    const state: FollowState = { after: segment.after, calls: new Set(segment.calls), usage: run.usage };
    let ending: Ending = { kind: "left" };
    try {
      ending = await this.#read(run, segment, { state, normalizer, put, channel }, () => skip, signal);
    } catch (error) {
      if (error instanceof LeaseLostError) this.stop(run.runId, "lost");
      else if (!signal.aborted) throw error;
    }
    if (ending.kind === "left" && signal.reason === "cancel") {
      endUnended(run, normalizer, put, channel, "aborted", "cancelled by the client", state.usage);
      ending = { kind: "end", status: "aborted" };
    }
    if (ending.kind === "left") {
      // Not ended: the run goes on on its worker, and another process (or the next start) follows it.
      await hub.abandon(channel);
      if (signal.reason === "stop")
        await log.releaseRun(run.runId, this.id).catch((error: unknown) => {
          console.error(
            `glassloop serve: handing run ${run.runId} over failed (its lease runs out instead):`,
            error,
          );
        });
      return;
    }
    const status: ServeRunStatus = ending.kind === "paused" ? "awaiting_approval" : ending.status;
    await hub.close(channel, async () => {
      if (channel.failure !== undefined)
        console.error(`glassloop serve: writing run ${run.runId} to the log failed:`, channel.failure);
      // Fenced like the items: a follower that lost the run records nothing of its end.
      if (status !== "awaiting_approval")
        await log.releaseChat(run.principal, run.chatId, run.runId, this.id);
      await log.setRunStatus(run.runId, status, state.usage, this.id);
    });
  }

  /** Reads the worker's events until the run ends, pauses, or `signal` stops it. */
  async #read(
    run: RunRecord,
    segment: ScaleSegment,
    out: {
      state: FollowState;
      normalizer: EventNormalizer;
      put: (items: LogItem[]) => void;
      channel: RunChannel;
    },
    skipping: () => number,
    signal: AbortSignal,
  ): Promise<Ending> {
    const { client, redactor, pollMs, log } = this.#o;
    const { state, normalizer, put, channel } = out;
    const runId = run.runId;
    let active = Date.now();
    while (!signal.aborted) {
      // A notice from now on counts: it may announce events this read comes too early for.
      this.#noticed.delete(runId);
      const batch = await client.readEvents(runId, state.after);
      if (batch.length > 0) active = Date.now();
      for (const { op, seq, event } of batch) {
        state.after = { op, seq };
        track(state, event);
        put(normalizer.push(event));
        if (event.type === "run_end") return { kind: "end", status: event.status };
      }
      if (batch.length > 0) continue;
      // Nothing new: the run waits (for a model, a tool, a person), or it ended without `run_end`.
      // Only a step whose answer asked for calls can wait for a person: otherwise no need to ask.
      if (skipping() === 0 && state.calls.size > 0) {
        const wait = await workerWait(client, runId, segment, state);
        // The worker writes a wait's events before it publishes the wait: read those first.
        if (wait && (await client.readEvents(runId, state.after, 1)).length > 0) continue;
        if (wait) {
          await recordPause(run, wait, state, { log, redactor, driver: this.id, normalizer, put });
          return { kind: "paused" };
        }
      }
      const status = await client.status(runId);
      if (status !== undefined && ENDED.has(status)) {
        if ((await client.readEvents(runId, state.after, 1)).length > 0) continue;
        if (status === "CANCELLED") {
          endUnended(run, normalizer, put, channel, "aborted", "cancelled", state.usage);
          return { kind: "end", status: "aborted" };
        }
        const message = await endMessage(client, runId);
        endUnended(run, normalizer, put, channel, "failed", redactor.text(message), state.usage);
        return { kind: "end", status: "failed" };
      }
      const quiet = this.notices && Date.now() - active > QUIET_AFTER_MS;
      await this.#sleep(runId, quiet ? Math.max(pollMs, QUIET_POLL_MS) : pollMs, signal);
    }
    return { kind: "left" };
  }

  /** Waits `ms`, or less: until a notice names the run, or the follower is stopped. */
  #sleep(runId: string, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted || this.#noticed.has(runId)) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        if (this.#wakers.get(runId) === done) this.#wakers.delete(runId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done, { once: true });
      this.#wakers.set(runId, done);
    });
  }
}
