/**
 * Told once when a stop fires. The shape of an `EventListener` object, so that an `AbortSignal`
 * (through `signalStop`) can hold the same watcher.
 */
export interface StopWatcher {
  handleEvent(): void;
}

/**
 * What stops a piece of work: read `aborted` and `reason`, or be told when it fires. A run's own
 * stop is a `RunStop`; any `AbortSignal` is one through `signalStop`.
 */
export interface Stop {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** An `AbortSignal` that fires with this stop, for code that needs one. */
  readonly signal: AbortSignal;
  /** `watcher` is told when the stop fires (never, if it already has: check `aborted` first). */
  watch(watcher: StopWatcher): void;
  unwatch(watcher: StopWatcher): void;
}

/**
 * A run's stop: its caller's signal, its timeout, or its stream's reader leaving fire it. The
 * loop, the tool calls and glassloop's own HTTP transport watch it directly; a real `AbortSignal`
 * (`signal`: a user's model, a hook, a tool's call signal) is made only when first asked for.
 *
 * Why not an `AbortController` per run: in Node 20 every `AbortSignal` is given a V8 map of its own
 * (its constructor changes the new object's prototype and then adds fields), and such objects, with
 * whatever they reach, survive the young generation's collections: in the floor bench the run's
 * signal was the largest share left of what every run promoted to the old generation. And adding
 * and removing a listener per model call on an `EventTarget` costs more than the array here.
 */
export class RunStop implements Stop {
  aborted = false;
  reason: unknown = undefined;
  #watchers: StopWatcher[] = [];
  #controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** Fires the stop with `reason`; a second call does nothing (the first reason stays). */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const watchers = this.#watchers;
    this.#watchers = [];
    for (const watcher of watchers) watcher.handleEvent();
    this.#controller?.abort(reason);
  }

  watch(watcher: StopWatcher): void {
    if (!this.aborted) this.#watchers.push(watcher);
  }

  unwatch(watcher: StopWatcher): void {
    const watchers = this.#watchers;
    // The last watched is the usual one to go (a call's watcher, while the run's stays).
    const i = watchers.lastIndexOf(watcher);
    if (i < 0) return;
    if (i === watchers.length - 1) watchers.pop();
    else watchers.splice(i, 1);
  }
}

/** An `AbortSignal` seen as a `Stop`. */
export function signalStop(signal: AbortSignal): Stop {
  return new SignalStop(signal);
}

class SignalStop implements Stop {
  constructor(readonly signal: AbortSignal) {}
  get aborted(): boolean {
    return this.signal.aborted;
  }
  get reason(): unknown {
    return this.signal.reason;
  }
  watch(watcher: StopWatcher): void {
    this.signal.addEventListener("abort", watcher, { once: true });
  }
  unwatch(watcher: StopWatcher): void {
    this.signal.removeEventListener("abort", watcher);
  }
}

// The run's stop rides along on the requests the loop builds, where no one iterates it: a model of
// glassloop's own reads it (stopOf) instead of making the request's `signal`.
const RUN_STOP = Symbol("glassloop.runStop");

/**
 * Gives `request` the lazily made `signal` of `stop` (an own, enumerable accessor: a spread of the
 * request copies the signal) and the stop itself, hidden, for `stopOf`.
 */
export function attachStop<T extends object>(request: T, stop: RunStop): T & { signal: AbortSignal } {
  Object.defineProperty(request, RUN_STOP, { value: stop, configurable: true });
  Object.defineProperty(request, "signal", SIGNAL_OF_STOP);
  return request as T & { signal: AbortSignal };
}

// One getter for every request (a literal's getters would give each request a V8 map of its own).
// A signal assigned in place of it becomes the request's plain signal, and its stop.
const SIGNAL_OF_STOP: PropertyDescriptor = {
  get(this: { [RUN_STOP]: RunStop }) {
    return this[RUN_STOP].signal;
  },
  set(this: { [RUN_STOP]?: RunStop }, value: AbortSignal) {
    delete this[RUN_STOP];
    Object.defineProperty(this, "signal", { value, writable: true, enumerable: true, configurable: true });
  },
  enumerable: true,
  configurable: true,
};

/** The stop of a request: the run's own when the loop built it, otherwise its `signal`. */
export function stopOf(request: { signal: AbortSignal }): Stop {
  return (request as { [RUN_STOP]?: RunStop })[RUN_STOP] ?? signalStop(request.signal);
}
