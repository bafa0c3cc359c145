import { describe, expect, it } from "vitest";
import { CASES, keywordModel, main, measure } from "../examples/routing-experiment.js";

describe("examples/routing-experiment.ts (seed 001)", () => {
  it("measures both set-ups on every labelled request", async () => {
    const { single, routed } = await measure(keywordModel);
    for (const share of [single, routed]) {
      expect(share * CASES.length).toBe(Math.round(share * CASES.length));
      expect(share).toBeGreaterThanOrEqual(0);
      expect(share).toBeLessThanOrEqual(1);
    }
    // The keyword baseline routes the clear-cut requests correctly; a broken harness scores 0.
    expect(routed).toBeGreaterThan(0.5);
  });

  it("says plainly when no language model is used", async () => {
    const lines: string[] = [];
    expect(await main([], (l) => lines.push(l))).toBe(0);
    expect(lines[0]).toMatch(/not a language model/);
    expect(lines[2]).toMatch(/router over two specialists: +\d+%/);
  });
});
