import type { ServeLog } from "./serve-log.js";

/** How often a run driven elsewhere is looked up while someone waits on it, with notices and without. */
const POLL_WITH_NOTICES_MS = 1_000;
const POLL_MS = 100;

/** Lets a reader end its own wait (it stopped reading). */
export interface Waker {
  wake?: () => void;
}

interface Waiter {
  after: number;
  done: (timedOut: boolean) => void;
}

/**
 * Waits on runs another process drives (several servers on one log): a waiter wakes when the
 * log says the run has an item after its cursor or stopped running. A log that announces changes
 * (Postgres NOTIFY, fed in through `noticed`) wakes waiters at once and is polled once a second
 * in case a notice was lost; one that cannot is polled every 100 ms, one query per run followed,
 * however many clients follow it.
 */
export class RunFollower {
  readonly #log: ServeLog;
  readonly #waiters = new Map<string, Set<Waiter>>();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  #notices = false;

  constructor(log: ServeLog) {
    this.#log = log;
  }

  /** Notices now arrive (true) or stopped (false): sets how often the log is polled. */
  set notices(on: boolean) {
    this.#notices = on;
  }

  /** Resolves once `runId` has an item after `after` or stopped running (false), or after `timeoutMs` (true). */
  wait(runId: string, after: number, timeoutMs: number, waker: Waker = {}): Promise<boolean> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(runId);
      if (!set) {
        set = new Set();
        this.#waiters.set(runId, set);
      }
      const waiters = set;
      const waiter: Waiter = {
        after,
        done: (timedOut) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          if (waiters.size === 0 && this.#waiters.get(runId) === waiters) this.#waiters.delete(runId);
          waker.wake = undefined;
          resolve(timedOut);
        },
      };
      const timer = setTimeout(() => waiter.done(true), timeoutMs);
      waiters.add(waiter);
      waker.wake = () => waiter.done(false);
      // Something may have been written between the reader's last read and this wait (before any notice
      // would reach it): look once now.
      void this.#check(runId);
      this.#schedule();
    });
  }

  /** Another process wrote to `runId`: its waiters read again. */
  noticed(runId: string): void {
    const waiters = this.#waiters.get(runId);
    if (waiters) for (const waiter of [...waiters]) waiter.done(false);
  }

  /** Wakes every waiter (shutdown). */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const runId of [...this.#waiters.keys()]) this.noticed(runId);
  }

  #schedule(): void {
    if (this.#timer || this.#waiters.size === 0) return;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        void this.#poll();
      },
      this.#notices ? POLL_WITH_NOTICES_MS : POLL_MS,
    );
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      await Promise.all([...this.#waiters.keys()].map((runId) => this.#check(runId)));
    } finally {
      this.#polling = false;
      this.#schedule();
    }
  }

  async #check(runId: string): Promise<void> {
    const waiters = this.#waiters.get(runId);
    if (!waiters || waiters.size === 0) return;
    let run: Awaited<ReturnType<ServeLog["getRun"]>>;
    try {
      run = await this.#log.getRun(runId);
    } catch {
      // The log is unreachable for now: the next poll tries again.
      return;
    }
    const stopped = run === undefined || run.status !== "running";
    for (const waiter of [...(this.#waiters.get(runId) ?? [])])
      if (stopped || (run as { lastSeq: number }).lastSeq > waiter.after) waiter.done(false);
  }
}
