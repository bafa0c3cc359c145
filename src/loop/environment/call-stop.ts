import type { Stop } from "../../core/stop.js";
import { startTimer } from "./timer.js";

/** The reason a call's stop carries when its timeout fired. */
export class ToolTimeout extends Error {}

/**
 * What stops one tool call: the run's stop (it is the watcher) or the call's timeout. It rejects
 * the call's race and aborts the call's own signal, which exists only once the tool asked for it.
 */
export class CallStop {
  stopped: { reason: unknown } | undefined;
  reject: ((reason: unknown) => void) | undefined;
  #controller: AbortController | undefined;
  #cancelTimer: (() => void) | undefined;

  constructor(private readonly parent: Stop) {}

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.stopped) this.#controller.abort(this.stopped.reason);
    }
    return this.#controller.signal;
  }

  /**
   * The tool's run returned `result`. The run's stop and the timeout are watched only now, and
   * only for a promise (until `release`): a listener and a timer are most of what a synchronous
   * call costs, and neither could stop one. A stop of the run before or while it ran still wins.
   */
  watch(result: unknown, timeoutMs: number): void {
    if (this.parent.aborted) this.handleEvent();
    else if (typeof (result as { then?: unknown } | null)?.then === "function") {
      this.parent.watch(this);
      this.#cancelTimer = startTimer(timeoutMs, () => this.abort(new ToolTimeout()));
    }
  }

  /** The call is over: stops watching. */
  release(): void {
    if (!this.#cancelTimer) return;
    this.#cancelTimer();
    this.parent.unwatch(this);
  }

  /** The run's stop fired. */
  handleEvent(): void {
    this.abort(this.parent.reason);
  }

  abort(reason: unknown): void {
    if (this.stopped) return;
    this.stopped = { reason };
    this.#controller?.abort(reason);
    this.reject?.(reason);
  }
}
