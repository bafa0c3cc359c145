import { describe, expect, it } from "vitest";
import { once } from "./once.js";

describe("once", () => {
  it("loads on the first call, not before, and once for every caller", async () => {
    let loads = 0;
    const get = once(async () => {
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
    const get = once(async () => {
      loads++;
      throw new Error("module missing");
    });
    await expect(get()).rejects.toThrow("module missing");
    await expect(get()).rejects.toThrow("module missing");
    expect(loads).toBe(1);
  });

  it("builds a synchronous value once, an undefined one included; a build that throws is tried again", () => {
    let builds = 0;
    const schema = once(() => {
      builds++;
      return { kind: "schema" };
    });
    expect(schema()).toBe(schema());
    expect(builds).toBe(1);

    let empties = 0;
    const nothing = once(() => {
      empties++;
      return undefined;
    });
    nothing();
    nothing();
    expect(empties).toBe(1);

    let attempts = 0;
    const flaky = once(() => {
      if (++attempts === 1) throw new Error("first build fails");
      return "built";
    });
    expect(() => flaky()).toThrow("first build fails");
    expect(flaky()).toBe("built");
    expect(attempts).toBe(2);
  });
});
