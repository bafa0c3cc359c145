import { ConfigError } from "../index.js";
import type { CombineRule, ScoreRecord } from "./types.js";

/** The default rule: a trial passes when every scorer passes. */
export const ALL_PASS: CombineRule = { rule: "all" };

/** Refuses a rule that cannot work (a threshold outside [0, 1], a weight for no scorer). */
export function checkRule(rule: CombineRule, scorers: readonly string[]): void {
  if (rule.rule !== "mean") return;
  if (!(rule.threshold >= 0 && rule.threshold <= 1)) {
    throw new ConfigError(`combine: the mean rule's threshold must be in [0, 1], got ${rule.threshold}`);
  }
  for (const [name, weight] of Object.entries(rule.weights ?? {})) {
    if (!scorers.includes(name))
      throw new ConfigError(`combine: a weight for "${name}", which is no scorer's name`);
    if (!(weight >= 0)) throw new ConfigError(`combine: the weight of "${name}" must be >= 0, got ${weight}`);
  }
}

/** A trial's combined score and pass under `rule`. No scores: score 0 and no pass. */
export function combine(rule: CombineRule, scores: readonly ScoreRecord[]): { score: number; pass: boolean } {
  if (scores.length === 0) return { score: 0, pass: false };
  switch (rule.rule) {
    case "all":
      return { score: Math.min(...scores.map((s) => s.score)), pass: scores.every((s) => s.pass) };
    case "any":
      return { score: Math.max(...scores.map((s) => s.score)), pass: scores.some((s) => s.pass) };
    case "mean": {
      let total = 0;
      let weights = 0;
      for (const s of scores) {
        const w = rule.weights?.[s.scorer] ?? 1;
        total += w * s.score;
        weights += w;
      }
      const score = weights === 0 ? 0 : total / weights;
      return { score, pass: score >= rule.threshold };
    }
  }
}
