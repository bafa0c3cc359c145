import { describe, expect, it } from "vitest";
import { heldTimeout } from "./held-timeout.js";

describe("heldTimeout", () => {
  it("aborts with a TimeoutError naming what timed out, also when only AbortSignal.any refers to it", async () => {
    const outer = new AbortController();
    const combined = AbortSignal.any([outer.signal, heldTimeout(20, "the peer").signal]);
    // Garbage made while waiting: the deadline must still fire (Node's AbortSignal.timeout inside any may not).
    const junk: unknown[] = [];
    for (let i = 0; i < 2e5; i++) junk.push({ i });
    const reason = await new Promise<unknown>((resolve) =>
      combined.addEventListener("abort", () => resolve(combined.reason), { once: true }),
    );
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe("TimeoutError");
    expect((reason as DOMException).message).toBe("the peer: no answer within 20 ms");
  });

  it("clear() stops it: the signal never aborts", async () => {
    const held = heldTimeout(10, "x");
    held.clear();
    await new Promise((r) => setTimeout(r, 40));
    expect(held.signal.aborted).toBe(false);
  });
});
