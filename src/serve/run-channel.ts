import { LeaseLostError } from "./errors.js";
import type { LogEntry, LogItem } from "./log-items.js";
import type { Waker } from "./run-follow.js";
import type { ServeLog } from "./serve-log.js";

/** Entries kept in memory after they are written, for readers that keep up (the rest read the log). */
const TAIL = 512;

/** How long deltas alone wait to be written together. */
const DELTA_BATCH_MS = 20;

function isDelta(item: LogItem): boolean {
  return item.kind === "event" && (item.event.type === "text_delta" || item.event.type === "reasoning_delta");
}

/**
 * One run being driven in this process: its items get their sequence numbers here, wait a tick
 * in memory, then go to the log in one transaction per batch. Readers that keep up read the
 * in-memory tail; the ones that fall behind read the log, so a slow client costs a cursor, not
 * a buffer. A reader gets an item only once it is in the log: after a crash, the process that
 * takes the run over numbers on from the log's last item, and no client has seen a number it
 * reuses (a Last-Event-ID never skips an item).
 */
export class RunChannel {
  readonly runId: string;
  readonly #log: ServeLog;
  #lastSeq: number;
  /** The sequence number of the last item written to the log: readers see up to here. */
  #stored: number;
  #tail: LogEntry[] = [];
  #unflushed = 0;
  #waiters = new Set<() => void>();
  #flushing: Promise<void> = Promise.resolve();
  #scheduled = false;
  #timer: NodeJS.Timeout | undefined;
  #failure: unknown;
  #live = true;
  /** No more appends: the run was handed over, or this process lost it. */
  #sealed = false;
  /** Items appended while a hand-over is under way: written if it fails, dropped if it succeeds. */
  #held: LogItem[] | undefined;
  /** The log refused a write: another process drives the run now. */
  #lost = false;
  /** The driver whose writes the log accepts (the fence); absent: unfenced. */
  readonly #driver: string | undefined;
  readonly #onLost: (() => void) | undefined;
  /** Settles when the hub closed the channel: the run's end is recorded. */
  readonly finished: Promise<void>;
  /** Settles `finished` (the hub, once the run's end is recorded). */
  readonly closed: () => void;

  /**
   * `driver`: the process's driver id; each write is refused unless the log still names it as
   * the run's driver, and then `onLost` is called and the items not written are dropped.
   */
  constructor(runId: string, log: ServeLog, lastSeq: number, driver?: string, onLost?: () => void) {
    this.runId = runId;
    this.#log = log;
    this.#driver = driver;
    this.#onLost = onLost;
    this.#lastSeq = lastSeq;
    this.#stored = lastSeq;
    let closed = () => {};
    this.finished = new Promise<void>((resolve) => {
      closed = resolve;
    });
    this.closed = closed;
  }

  /** The sequence number of the last item appended (-1: none). */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Whether a driver still appends to this run. */
  get live(): boolean {
    return this.#live;
  }

  /** A write to the log failed: the run's stream cannot be trusted to be whole. */
  get failure(): unknown {
    return this.#failure;
  }

  /**
   * Appends items with the next sequence numbers. They are written to the log on the next tick,
   * except text and reasoning deltas alone, which wait up to DELTA_BATCH_MS so a fast stream
   * costs one transaction per batch, not per token (a crash loses at most that much of a step the
   * resumed run streams again anyway).
   */
  append(items: readonly LogItem[]): void {
    if (items.length === 0 || this.#sealed) return;
    if (this.#held) {
      this.#held.push(...items);
      return;
    }
    for (const item of items) this.#tail.push({ seq: ++this.#lastSeq, item });
    this.#unflushed += items.length;
    if (items.some((item) => !isDelta(item))) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    } else if (!this.#scheduled && !this.#timer) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#flush();
      }, DELTA_BATCH_MS);
    }
  }

  /** Accepts no more items, and drops those held (those appended before are still written). */
  seal(): void {
    this.#sealed = true;
    this.#held = undefined;
  }

  /** Holds the items appended from now on, unnumbered and unseen, until `seal` or `unhold`. */
  hold(): void {
    if (!this.#sealed) this.#held ??= [];
  }

  /** Appends the items held, and those that come later, as usual (a hand-over that did not happen). */
  unhold(): void {
    const held = this.#held;
    this.#held = undefined;
    if (held) this.append(held);
  }

  /** Written entries after `after` from memory, or undefined when memory no longer holds them all. */
  readTail(after: number, limit: number): LogEntry[] | undefined {
    const first = this.#tail[0];
    if (after >= this.#stored) return [];
    if (first === undefined || first.seq > after + 1) return undefined;
    const start = after + 1 - first.seq;
    return this.#tail.slice(start, Math.min(start + limit, this.#stored + 1 - first.seq));
  }

  /**
   * Resolves once there is an item after `after` or the run ends (false), or after `timeoutMs`
   * (true). `waker.wake` is set while waiting, so a cancelled reader can end its wait at once.
   */
  wait(after: number, timeoutMs: number, waker: Waker = {}): Promise<boolean> {
    if (!this.#live || this.#stored > after) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (timedOut: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        waker.wake = undefined;
        resolve(timedOut);
      };
      const wake = () => done(false);
      const timer = setTimeout(() => done(true), timeoutMs);
      this.#waiters.add(wake);
      waker.wake = wake;
    });
  }

  /** Waits until everything appended so far is in the log. */
  async flushed(): Promise<void> {
    if (this.#unflushed > 0) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#flush();
    }
    await this.#flushing;
  }

  /** No more items will come: flushes, then wakes every reader. */
  async end(): Promise<void> {
    await this.flushed();
    this.#live = false;
    this.#wake();
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#unflushed === 0) return;
    const batch = this.#tail.slice(this.#tail.length - this.#unflushed);
    this.#unflushed = 0;
    this.#flushing = this.#flushing.then(async () => {
      if (this.#lost) return;
      try {
        await this.#log.append(this.runId, batch, this.#driver);
      } catch (error) {
        if (error instanceof LeaseLostError) {
          // Another process drives the run and numbers its items from the log: these must never
          // reach a reader (they would collide with its numbers). Drop them, and stop.
          this.#lost = true;
          this.#sealed = true;
          this.#tail = this.#tail.filter((entry) => entry.seq <= this.#stored);
          this.#unflushed = 0;
          this.#wake();
          this.#onLost?.();
          return;
        }
        // The stream goes on to its readers; `failure` says the log lacks part of it.
        this.#failure ??= error;
      }
      this.#stored = (batch.at(-1) as LogEntry).seq;
      this.#wake();
      // Only written entries may leave memory: an unwritten one has no other copy.
      const keep = Math.max(TAIL, this.#unflushed);
      if (this.#tail.length > keep) this.#tail = this.#tail.slice(this.#tail.length - keep);
    });
  }

  #wake(): void {
    if (this.#waiters.size === 0) return;
    for (const waiter of [...this.#waiters]) waiter();
  }
}
