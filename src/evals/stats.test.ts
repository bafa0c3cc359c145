import { describe, expect, it } from "vitest";
import {
  bootstrapMean,
  mcnemar,
  pairedBootstrap,
  passAtK,
  quantile,
  seededRandom,
  spread,
  wilson,
} from "./stats.js";

describe("statistics against known values", () => {
  it("Wilson interval: 8 of 10 is [0.490, 0.943], 0 of 10 is [0, 0.278], n = 0 is [0, 1]", () => {
    const w = wilson(8, 10);
    expect(w.value).toBe(0.8);
    expect(w.lo).toBeCloseTo(0.4902, 4);
    expect(w.hi).toBeCloseTo(0.9433, 4);
    const zero = wilson(0, 10);
    expect(zero.lo).toBe(0);
    expect(zero.hi).toBeCloseTo(0.2775, 4);
    expect(wilson(0, 0)).toEqual({ value: 0, lo: 0, hi: 1 });
  });

  it("McNemar's exact test on a fixed table: 1 vs 8 discordant pairs gives p = 20/512", () => {
    expect(mcnemar(1, 8).pValue).toBeCloseTo(20 / 512, 12);
    expect(mcnemar(8, 1).pValue).toBeCloseTo(20 / 512, 12);
    // Equal discordant counts are no evidence either way; none at all, neither.
    expect(mcnemar(5, 5).pValue).toBe(1);
    expect(mcnemar(0, 0).pValue).toBe(1);
    // 0 vs 10: 2 * 0.5^10.
    expect(mcnemar(0, 10).pValue).toBeCloseTo(2 / 1024, 12);
    // Hundreds of pairs do not underflow to 0 or overflow past 1.
    const big = mcnemar(200, 260).pValue;
    expect(big).toBeGreaterThan(0.001);
    expect(big).toBeLessThan(0.01);
  });

  it("pass@k by the unbiased estimator", () => {
    expect(passAtK(5, 0, 1)).toBe(0);
    expect(passAtK(5, 5, 3)).toBe(1);
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    // 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passAtK(5, 2, 4)).toBe(1);
  });

  it("the seeded generator repeats itself and the bootstrap with it", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    expect(first.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(seededRandom(43)()).not.toBe(first[0]);
    const values = [0, 1, 1, 0, 1, 1, 1, 0, 1, 1];
    const one = bootstrapMean(values, { seed: 7 });
    expect(bootstrapMean(values, { seed: 7 })).toEqual(one);
    expect(one.value).toBe(0.7);
    // Close to the normal-approximation interval 0.7 ± 1.96 * sqrt(0.21 / 10) = [0.416, 0.984].
    expect(one.lo).toBeGreaterThan(0.35);
    expect(one.lo).toBeLessThan(0.5);
    expect(one.hi).toBeGreaterThan(0.9);
    expect(one.hi).toBeLessThanOrEqual(1);
  });

  it("paired bootstrap: a consistent improvement excludes 0, noise does not", () => {
    const before = [0.2, 0.4, 0.5, 0.3, 0.6, 0.4, 0.5, 0.2, 0.3, 0.4];
    const after = before.map((b, i) => b + 0.2 + (i % 3) * 0.05);
    const better = pairedBootstrap(before, after, { seed: 3 });
    expect(better.meanDifference).toBeCloseTo(0.245, 10);
    expect(better.lo).toBeGreaterThan(0);
    expect(better.pValue).toBeLessThan(0.01);
    const noisy = pairedBootstrap(
      before,
      before.map((b, i) => b + (i % 2 === 0 ? 0.1 : -0.1)),
      { seed: 3 },
    );
    expect(noisy.lo).toBeLessThan(0);
    expect(noisy.hi).toBeGreaterThan(0);
    expect(noisy.pValue).toBeGreaterThan(0.5);
    expect(pairedBootstrap([1, 1], [1, 1]).pValue).toBe(1);
    expect(() => pairedBootstrap([1], [1, 2])).toThrow(RangeError);
  });

  it("quantiles interpolate between ranks: median and p95", () => {
    expect(quantile([3, 1, 2], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    const values = Array.from({ length: 21 }, (_, i) => i * 10);
    expect(spread(values)).toEqual({ median: 100, p95: 190 });
    expect(quantile([], 0.5)).toBe(0);
  });
});
