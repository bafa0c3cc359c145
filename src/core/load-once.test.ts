import { describe, expect, it } from "vitest";
import { loadOnce } from "./load-once.js";

describe("loadOnce", () => {
  it("loads on the first call, not before, and once for every caller", async () => {
    let loads = 0;
    const get = loadOnce(async () => {
      loads++;
      return { value: 42 };
    });
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([get(), get()]);
    expect(loads).toBe(1);
    expect(a).toBe(b);
    expect((await get()).value).toBe(42);
    expect(loads).toBe(1);
  });

  it("keeps a failed load failed: every caller sees the same error", async () => {
    let loads = 0;
    const get = loadOnce(async () => {
      loads++;
      throw new Error("module missing");
    });
    await expect(get()).rejects.toThrow("module missing");
    await expect(get()).rejects.toThrow("module missing");
    expect(loads).toBe(1);
  });
});
