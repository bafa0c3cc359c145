/**
 * Follows the tasks that have push-notification configs and POSTs each change of state and each
 * artifact to their webhooks, in order, one task at a time. Text and tool-call progress (working
 * updates without a change of state) is streamed, never pushed. A watcher ends with its task, or
 * when its last config is deleted, or when the server closes; a task that waits for input (its run
 * is not driven then) is looked at again every moment until it moves. With a store that records
 * where each task's notifications stand, a server that starts follows the tasks its predecessor
 * left unfinished from there (an item in flight at a crash may be notified twice, never skipped).
 */
import { randomUUID } from "node:crypto";
import { isFinal, type LogEntry } from "../../serve/log-items.js";
import type { ServeContext } from "../../serve/serve-context.js";
import type { RunRecord } from "../../serve/serve-log.js";
import { streamV03 } from "../v03.js";
import type { StreamResponse } from "../wire.js";
import type { A2APushDelivery, A2APushOptions } from "./options.js";
import { sendNotification } from "./push-sender.js";
import type { A2APushStore, PushConfig, PushProgress } from "./push-store.js";
import { rpcError } from "./rpc.js";
import { streamEventsOf } from "./stream-encoder.js";

/**
 * How often a watcher looks at a task its process is not driving (waiting for input, or driven
 * elsewhere): soon at first, then less often while nothing moves (a task may wait days for input).
 */
const IDLE_POLL_MS = 250;
const IDLE_POLL_MAX_MS = 2_000;

/** How long a server's right to send a task's notifications holds unless it renews it. */
const LEASE_MS = 30_000;
/** How often a server looks for unfinished tasks nobody follows (a server that stopped held them). */
const FOLLOW_AGAIN_MS = 15_000;
const LIVE_WAIT_MS = 1_000;

/** Run statuses in which a task may still change. */
const ACTIVE: ReadonlySet<string> = new Set(["running", "awaiting_approval"]);

const DEFAULT_PER_TASK = 10;
const DEFAULT_PER_CALLER = 100;

/** Push notifications as one server runs them. */
export interface PushRuntime {
  options: A2APushOptions;
  dispatcher: PushDispatcher;
}

/** Refuses a new config past the caps (per task, per caller); replacing one (same id) always fits. */
export async function checkRoom(
  principal: string,
  push: PushRuntime,
  taskId: string | undefined,
  id: string,
): Promise<void> {
  const { store } = push.dispatcher;
  const existing = taskId === undefined ? [] : await store.list(principal, taskId);
  if (existing.some((c) => c.id === id)) return;
  const perTask = push.options.maxConfigsPerTask ?? DEFAULT_PER_TASK;
  if (existing.length >= perTask)
    throw rpcError.invalidParams(`a task has at most ${perTask} push notification configs`);
  const perCaller = push.options.maxConfigsPerCaller ?? DEFAULT_PER_CALLER;
  if ((await store.count(principal)) >= perCaller)
    throw rpcError.invalidParams(`a caller has at most ${perCaller} push notification configs`);
}

/** Stores `config` (within the caps) and follows its task after `after`. */
export async function addConfig(
  principal: string,
  push: PushRuntime,
  run: RunRecord,
  config: PushConfig,
  after: number,
): Promise<void> {
  await checkRoom(principal, push, config.taskId, config.id);
  await push.dispatcher.store.put(principal, config);
  push.dispatcher.watch(run, after);
}

/** The watchers of one server. */
export class PushDispatcher {
  readonly #ctx: ServeContext;
  readonly #options: A2APushOptions;
  readonly store: A2APushStore;
  readonly #watchers = new Map<string, Promise<void>>();
  readonly #closing = new AbortController();
  /** This server, as the follower that holds the leases it takes. */
  readonly #follower = randomUUID();
  #again: NodeJS.Timeout | undefined;

  constructor(ctx: ServeContext, options: A2APushOptions, store: A2APushStore) {
    this.#ctx = ctx;
    this.#options = options;
    this.store = store;
  }

  /** Follows `run` after `after` (its log's sequence number), unless a watcher already does. */
  watch(run: RunRecord, after: number, lastState?: string): void {
    if (this.#closing.signal.aborted || this.#watchers.has(run.runId)) return;
    const loop = this.#follow(run, after, lastState)
      .catch((error: unknown) => {
        if (!this.#closing.signal.aborted) console.error("glassloop a2a: push notifications stopped:", error);
      })
      .finally(async () => {
        this.#watchers.delete(run.runId);
        // Another server may take the task at once (a finished one is marked done already).
        await this.store.release?.(run.runId, this.#follower).catch(() => {});
      });
    this.#watchers.set(run.runId, loop);
  }

  /**
   * Follows `run` from now on if its caller has configs for it and nobody follows it: for configs
   * a durable store kept across a restart, picked up the next time the caller touches the task.
   */
  async resume(run: RunRecord, after: number): Promise<void> {
    if (this.#watchers.has(run.runId) || this.#closing.signal.aborted) return;
    if ((await this.store.list(run.principal, run.runId)).length > 0) this.watch(run, after);
  }

  /**
   * Follows again, each from where its notifications stood, the unfinished tasks no server holds
   * (the last process stopped, or another sharing the store did): now, when the server starts,
   * and every little while after. Failures are logged: serving goes on.
   */
  followPending(): void {
    if (!this.store.pending || this.#closing.signal.aborted) return;
    this.store
      .pending(Date.now())
      .then(async (tasks) => {
        for (const task of tasks) {
          if (this.#watchers.has(task.taskId)) continue;
          const run = await this.#ctx.log.getRun(task.taskId);
          if (run?.principal === task.principal) this.watch(run, task.seq, task.state);
        }
      })
      .catch((error: unknown) =>
        console.error("glassloop a2a: push notifications not followed again:", error),
      );
    if (!this.#again) {
      this.#again = setInterval(() => this.followPending(), FOLLOW_AGAIN_MS);
      this.#again.unref();
    }
  }

  /** Stops every watcher (a notification in flight ends with its try) and gives up its leases. */
  async close(): Promise<void> {
    this.#closing.abort();
    if (this.#again) clearInterval(this.#again);
    await Promise.allSettled([...this.#watchers.values()]);
  }

  /** Takes or renews this server's lease on the task; undefined when another server holds it. */
  async #claim(run: RunRecord): Promise<PushProgress | undefined> {
    const now = Date.now();
    if (!this.store.claim) return { principal: run.principal, taskId: run.runId, seq: -1, done: false };
    return this.store.claim(run.runId, run.principal, this.#follower, now + LEASE_MS, now);
  }

  async #follow(run: RunRecord, after: number, state: string | undefined): Promise<void> {
    const signal = this.#closing.signal;
    const held = await this.#claim(run);
    // Another server sends this task's notifications.
    if (!held) return;
    let renewAt = Date.now() + LEASE_MS / 3;
    const events = streamEventsOf(run);
    // Where a server that held the task before stopped, if that is earlier: nothing is skipped.
    const resumed = !held.done && held.seq >= 0 && held.seq < after;
    let cursor = resumed ? held.seq : after;
    let lastState = resumed ? held.state : state;
    const progress = (done: boolean) =>
      this.#progress({
        principal: run.principal,
        taskId: run.runId,
        seq: cursor,
        done,
        ...(lastState && { state: lastState }),
      });
    await progress(false);
    let idleMs = IDLE_POLL_MS;
    while (!signal.aborted) {
      if (Date.now() >= renewAt) {
        if (!(await this.#claim(run))) return;
        renewAt = Date.now() + LEASE_MS / 3;
      }
      // Every config deleted: nothing to follow (a config set later starts from its own moment).
      if ((await this.store.list(run.principal, run.runId)).length === 0) return progress(true);
      const { entries, live } = await this.#ctx.hub.read(run.runId, cursor, 256);
      for (const entry of entries as LogEntry[]) {
        let sent = false;
        for (const event of events(entry)) {
          if ("statusUpdate" in event) {
            if (event.statusUpdate.status.state === lastState) continue;
            lastState = event.statusUpdate.status.state;
          } else if (!("artifactUpdate" in event)) continue;
          await this.#deliver(run, event);
          sent = true;
          if (signal.aborted) return;
        }
        cursor = entry.seq;
        if (isFinal(entry.item)) return progress(true);
        if (sent) await progress(false);
      }
      if (entries.length > 0) {
        idleMs = IDLE_POLL_MS;
        continue;
      }
      if (live) await this.#ctx.hub.wait(run.runId, cursor, LIVE_WAIT_MS);
      else {
        // A task that ended before this watcher began has nothing more to send.
        const record = await this.#ctx.log.getRun(run.runId);
        if (record && !ACTIVE.has(record.status) && cursor >= record.lastSeq) return progress(true);
        await sleep(idleMs, signal);
        idleMs = Math.min(IDLE_POLL_MAX_MS, idleMs * 2);
      }
    }
  }

  async #progress(progress: PushProgress): Promise<void> {
    await this.store.setProgress?.(progress);
  }

  async #deliver(run: RunRecord, event: StreamResponse): Promise<void> {
    // Read again for every event: a config deleted a moment ago gets nothing more.
    const configs = await this.store.list(run.principal, run.runId);
    const deliveries = await Promise.all(
      configs.map((config) =>
        sendNotification(config, bodyOf(config, event), this.#options, this.#closing.signal),
      ),
    );
    for (const delivery of deliveries) this.#report(delivery);
  }

  #report(delivery: A2APushDelivery): void {
    if (this.#options.onDelivery) {
      try {
        this.#options.onDelivery(delivery);
      } catch (error) {
        console.error("glassloop a2a: onDelivery threw:", error);
      }
      return;
    }
    if (delivery.outcome !== "delivered")
      console.warn(
        `glassloop a2a: push notification for task ${delivery.taskId} to ${delivery.host} ${delivery.outcome}: ${delivery.reason}`,
      );
  }
}

/** The body of one notification, in the spelling the config's caller speaks. */
function bodyOf(config: PushConfig, event: StreamResponse): string {
  return JSON.stringify(config.version === "0.3" ? streamV03(event) : event);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
