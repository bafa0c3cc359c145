import { describe, expect, it, vi } from "vitest";
import { sleep } from "./sleep.js";

describe("sleep", () => {
  it("waits, and leaves no listener on the signal", async () => {
    const controller = new AbortController();
    const signal = controller.signal;
    const added = vi.spyOn(signal, "addEventListener");
    const removed = vi.spyOn(signal, "removeEventListener");
    await sleep(5, signal);
    expect([added.mock.calls.length, removed.mock.calls.length]).toEqual([1, 1]);
  });

  it("rejects with the signal's reason when it fires, and at once when it already has", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(waiting).rejects.toThrow("stop");
    await expect(sleep(60_000, controller.signal)).rejects.toThrow("stop");
  });
});
