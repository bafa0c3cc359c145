import { endsSegment, type LogEntry } from "./log-items.js";
import { RunChannel } from "./run-channel.js";
import { RunFollower, type Waker } from "./run-follow.js";
import type { ServeLog } from "./serve-log.js";

/**
 * The runs this process drives, by id, and the way to read any run: from memory while it is
 * driven here, else from the log, following runs other processes drive (several servers on one
 * log) until the log says they stopped.
 */
export class RunHub {
  readonly #channels = new Map<string, RunChannel>();
  readonly #log: ServeLog;
  readonly #follower: RunFollower;

  constructor(log: ServeLog) {
    this.#log = log;
    this.#follower = new RunFollower(log);
  }

  /** Set while the process drains: readers of runs not driven here end their responses. */
  draining = false;

  /** Starts appending to `runId` after `lastSeq`, fenced by `driver` when given (see RunChannel). */
  open(runId: string, lastSeq: number, driver?: string, onLost?: () => void): RunChannel {
    const channel = new RunChannel(runId, this.#log, lastSeq, driver, onLost);
    this.#channels.set(runId, channel);
    return channel;
  }

  get(runId: string): RunChannel | undefined {
    return this.#channels.get(runId);
  }

  /**
   * Ends the channel (after its last write), runs `then` (recording the run's end: its status, the
   * chat freed) and forgets it. Until `then` is done, readers here see the channel ended, not the
   * log's old status, and `finished` lets a response wait for it, so a client that reads the last
   * item and at once sends the next request finds the run's end recorded.
   */
  async close(channel: RunChannel, then?: () => Promise<void>): Promise<void> {
    const runId = channel.runId;
    try {
      await channel.end();
      await then?.();
    } finally {
      if (this.#channels.get(runId) === channel) this.#channels.delete(runId);
      channel.closed();
    }
  }

  /**
   * Lets go of a run this process no longer drives (handed over, or lost): its readers read the
   * log from now on, following whichever process drives it next; nothing of its end is recorded.
   */
  async abandon(channel: RunChannel): Promise<void> {
    if (this.#channels.get(channel.runId) === channel) this.#channels.delete(channel.runId);
    try {
      await channel.end();
    } finally {
      channel.closed();
    }
  }

  /**
   * Settles once the end of `runId`, whose last item a reader has, is recorded (its chat freed,
   * then its status). Driven elsewhere: once the log no longer says it runs, waiting at most a few
   * seconds (a driver that died meanwhile has its end recorded by whoever takes the run over).
   */
  async finished(runId: string): Promise<void> {
    const channel = this.#channels.get(runId);
    if (channel) return channel.finished;
    const until = Date.now() + 5_000;
    while (Date.now() < until) {
      if ((await this.#log.getRun(runId))?.status !== "running") return;
      await this.#follower.wait(runId, Number.MAX_SAFE_INTEGER, until - Date.now());
    }
  }

  /** Runs driven here now. */
  get size(): number {
    return this.#channels.size;
  }

  /**
   * Entries of `runId` after `after`: from memory when the run is live here and memory holds them,
   * else from the log. `live` says whether more may come.
   */
  async read(runId: string, after: number, limit: number): Promise<{ entries: LogEntry[]; live: boolean }> {
    const channel = this.#channels.get(runId);
    if (channel) {
      const tail = channel.readTail(after, limit);
      if (tail !== undefined) return { entries: tail, live: channel.live };
      await channel.flushed();
      const entries = await this.#log.read(runId, after, limit);
      return { entries, live: channel.live && this.#channels.get(runId) === channel };
    }
    // Driven elsewhere, or nowhere. Whether more may come matters only when nothing came, or a
    // pause came last: then the status is read, and the items again after it (a run that was not
    // running then had written its last item already, so that read misses nothing).
    const entries = await this.#log.read(runId, after, limit);
    const last = entries.at(-1);
    if (last !== undefined && !endsSegment(last.item)) return { entries, live: true };
    const run = await this.#log.getRun(runId);
    if (run?.status === "running") return { entries, live: true };
    return { entries: await this.#log.read(runId, after, limit), live: false };
  }

  /** Waits for an item of `runId` after `after` (false) or `timeoutMs` (true), wherever it is driven. */
  wait(runId: string, after: number, timeoutMs: number, waker?: Waker): Promise<boolean> {
    const channel = this.#channels.get(runId);
    if (channel) return channel.wait(after, timeoutMs, waker);
    return this.#follower.wait(runId, after, timeoutMs, waker);
  }

  /** Another process wrote to `runId` (a notice from the log): readers following it read again. */
  noticed(runId: string): void {
    this.#follower.noticed(runId);
  }

  /** Whether notices from the log arrive: readers of runs driven elsewhere poll less often when they do. */
  set notices(on: boolean) {
    this.#follower.notices = on;
  }

  /** Wakes every reader following another process's run (shutdown). */
  stop(): void {
    this.#follower.close();
  }
}
