import { describe, expect, it } from "vitest";
import { attachStop, RunStop, signalStop, stopOf } from "./stop.js";

const watcher = (log: string[], name: string) => ({
  handleEvent() {
    log.push(name);
  },
});

describe("RunStop", () => {
  it("tells each watcher once, keeps the first reason, and forgets the watchers", () => {
    const stop = new RunStop();
    const log: string[] = [];
    const a = watcher(log, "a");
    stop.watch(a);
    stop.watch(watcher(log, "b"));
    stop.watch(watcher(log, "c"));
    stop.unwatch(a);
    stop.abort("first");
    stop.abort("second");
    expect(log).toEqual(["b", "c"]);
    expect(stop.aborted).toBe(true);
    expect(stop.reason).toBe("first");
    stop.watch(watcher(log, "late"));
    stop.abort("third");
    expect(log).toEqual(["b", "c"]);
  });

  it("makes its signal only when asked, firing with the stop or already fired", () => {
    const stop = new RunStop();
    const signal = stop.signal;
    expect(stop.signal).toBe(signal);
    const fired: unknown[] = [];
    signal.addEventListener("abort", () => fired.push(signal.reason));
    stop.abort("why");
    expect(fired).toEqual(["why"]);

    const late = new RunStop();
    late.abort("before");
    expect(late.signal.aborted).toBe(true);
    expect(late.signal.reason).toBe("before");
  });

  it("unwatches the watcher it is given, wherever it stands", () => {
    const stop = new RunStop();
    const log: string[] = [];
    const [a, b, c] = [watcher(log, "a"), watcher(log, "b"), watcher(log, "c")];
    for (const w of [a, b, c]) stop.watch(w);
    stop.unwatch(b);
    stop.unwatch(watcher(log, "never watched"));
    stop.abort(undefined);
    expect(log).toEqual(["a", "c"]);
  });
});

describe("a request's stop", () => {
  it("is the run's stop on a request the loop built, and its signal is the stop's, made when read", () => {
    const stop = new RunStop();
    const request = attachStop({ messages: [] }, stop);
    expect(stopOf(request)).toBe(stop);
    expect(Object.keys(request)).toEqual(["messages", "signal"]);
    const copy = { ...request };
    expect(copy.signal).toBe(stop.signal);
    // A copy is a plain request: its stop is its (now real) signal.
    const ofCopy = stopOf(copy);
    expect(ofCopy).not.toBe(stop);
    stop.abort("gone");
    expect(ofCopy.aborted).toBe(true);
    expect(ofCopy.reason).toBe("gone");
  });

  it("follows a signal assigned in place of the run's", () => {
    const request = attachStop({ messages: [] }, new RunStop());
    const own = new AbortController();
    request.signal = own.signal;
    expect(request.signal).toBe(own.signal);
    const stop = stopOf(request);
    const log: string[] = [];
    stop.watch(watcher(log, "w"));
    own.abort("mine");
    expect(log).toEqual(["w"]);
    expect(stop.reason).toBe("mine");
  });

  it("sees any AbortSignal as a stop", () => {
    const controller = new AbortController();
    const stop = signalStop(controller.signal);
    const log: string[] = [];
    const w = watcher(log, "w");
    stop.watch(w);
    stop.unwatch(w);
    stop.watch(watcher(log, "kept"));
    expect(stop.aborted).toBe(false);
    controller.abort("now");
    expect(log).toEqual(["kept"]);
    expect(stop.reason).toBe("now");
    expect(stop.signal).toBe(controller.signal);
  });
});
