/**
 * The statistics of an eval, small and checked against known values: Wilson intervals for
 * proportions, percentile bootstrap (seeded) for means, pass@k, McNemar's exact test and the
 * paired bootstrap for baselines.
 */

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/** A seeded pseudo-random generator in [0, 1) (mulberry32): the same seed, the same bootstrap. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The Wilson score interval of `successes` out of `n` (95% by default); [0, 1] when n is 0. */
export function wilson(successes: number, n: number, z = Z95): { value: number; lo: number; hi: number } {
  if (n === 0) return { value: 0, lo: 0, hi: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { value: p, lo: Math.max(0, center - half), hi: Math.min(1, center + half) };
}

/** The arithmetic mean (0 for no values). */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** The `q` quantile (0..1) with linear interpolation between closest ranks. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (at - lo);
}

/** Median and 95th percentile. */
export function spread(values: readonly number[]): { median: number; p95: number } {
  return { median: quantile(values, 0.5), p95: quantile(values, 0.95) };
}

/** Options of a bootstrap. */
export interface BootstrapOptions {
  /** Resamples (default 2000). */
  iterations?: number;
  /** Seed of the generator (default 1), so a report is reproducible. */
  seed?: number;
}

/** The percentile-bootstrap 95% interval of the mean of `values`. */
export function bootstrapMean(
  values: readonly number[],
  options: BootstrapOptions = {},
): { value: number; lo: number; hi: number } {
  const value = mean(values);
  if (values.length < 2) return { value, lo: value, hi: value };
  const means = resampleMeans(values, options);
  return { value, lo: quantile(means, 0.025), hi: quantile(means, 0.975) };
}

function resampleMeans(values: readonly number[], options: BootstrapOptions): number[] {
  const random = seededRandom(options.seed ?? 1);
  const iterations = options.iterations ?? 2000;
  const n = values.length;
  const means = new Array<number>(iterations);
  for (let i = 0; i < iterations; i++) {
    let sum = 0;
    for (let k = 0; k < n; k++) sum += values[Math.floor(random() * n)] as number;
    means[i] = sum / n;
  }
  return means;
}

/** Binomial coefficient as a float (exact for the sizes evals have). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let i = 1; i <= Math.min(k, n - k); i++) result = (result * (n - Math.min(k, n - k) + i)) / i;
  return result;
}

/**
 * pass@k: the chance that at least one of `k` trials drawn from `n` (of which `c` passed) passes,
 * by the unbiased estimator 1 - C(n-c, k) / C(n, k).
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n || n === 0) return c > 0 ? 1 : 0;
  if (n - c < k) return 1;
  return 1 - choose(n - c, k) / choose(n, k);
}

/** McNemar's test on the discordant pairs of a paired pass/fail comparison. */
export interface McNemar {
  /** Cases that passed before and fail now. */
  regressed: number;
  /** Cases that failed before and pass now. */
  improved: number;
  /** Two-sided exact p-value (binomial, p = 1/2 on the discordant pairs); 1 with none. */
  pValue: number;
}

/** McNemar's exact test: is the change in pass/fail more than chance? */
export function mcnemar(regressed: number, improved: number): McNemar {
  const n = regressed + improved;
  if (n === 0) return { regressed, improved, pValue: 1 };
  const k = Math.min(regressed, improved);
  // Sums in log space so a few hundred discordant cases do not underflow 0.5^n.
  let tail = 0;
  for (let i = 0; i <= k; i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return { regressed, improved, pValue: Math.min(1, 2 * tail) };
}

function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i++) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}

/** The paired bootstrap of a mean difference (now minus before) with its interval and a p-value. */
export interface PairedDifference {
  meanDifference: number;
  lo: number;
  hi: number;
  /** Two-sided: twice the share of resampled means on the other side of 0 (capped at 1). */
  pValue: number;
  n: number;
}

/** Paired bootstrap of `after[i] - before[i]`. */
export function pairedBootstrap(
  before: readonly number[],
  after: readonly number[],
  options: BootstrapOptions = {},
): PairedDifference {
  if (before.length !== after.length) throw new RangeError("paired samples must have the same length");
  const differences = after.map((a, i) => a - (before[i] as number));
  const meanDifference = mean(differences);
  const n = differences.length;
  if (n < 2 || differences.every((d) => d === differences[0])) {
    return {
      meanDifference,
      lo: meanDifference,
      hi: meanDifference,
      pValue: meanDifference === 0 ? 1 : 0,
      n,
    };
  }
  const means = resampleMeans(differences, options);
  const below = means.filter((m) => m <= 0).length / means.length;
  const above = means.filter((m) => m >= 0).length / means.length;
  return {
    meanDifference,
    lo: quantile(means, 0.025),
    hi: quantile(means, 0.975),
    pValue: Math.min(1, 2 * Math.min(below, above)),
    n,
  };
}
