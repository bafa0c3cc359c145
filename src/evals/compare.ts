import { type McNemar, mcnemar, mean, type PairedDifference, pairedBootstrap } from "./stats.js";
import { isScored } from "./summary.js";
import type { CaseRecord, EvalResult } from "./types.js";

/** How one case moved between a baseline and the current eval. */
export interface CaseChange {
  id: string;
  change: "improved" | "regressed" | "unchanged";
  before: { passRate: number; meanScore: number; costUsd?: number; latencyMs: number };
  after: { passRate: number; meanScore: number; costUsd?: number; latencyMs: number };
}

/** A baseline comparison: case by case, with paired tests and cost and latency deltas. */
export interface Comparison {
  baseline: { id: string; name: string };
  current: { id: string; name: string };
  cases: CaseChange[];
  improved: number;
  regressed: number;
  unchanged: number;
  /** Cases in only one of the two (not compared). */
  onlyBaseline: string[];
  onlyCurrent: string[];
  /** Pass/fail per case (a case passes when at least half its trials do). */
  mcnemar: McNemar;
  /** Mean score per case, now minus before. */
  score: PairedDifference;
  passRateDelta: number;
  /** Mean per-case cost and latency, now minus before. */
  costDeltaUsd?: number;
  latencyDeltaMs: number;
}

function facts(c: CaseRecord) {
  const scored = c.trials.filter(isScored);
  const costs = scored.map((t) => t.costUsd);
  const known = costs.length > 0 && costs.every((x) => x !== undefined);
  return {
    passRate: c.passRate,
    meanScore: c.meanScore,
    ...(known && { costUsd: mean(costs as number[]) }),
    latencyMs: mean(scored.map((t) => t.latencyMs)),
  };
}

/**
 * Compares `current` with `baseline` case by case (matched by id). McNemar's exact test on each
 * case's pass, the paired bootstrap on each case's mean score: "better" comes with a p-value and
 * an interval, not one lucky run.
 */
export function compareResults(baseline: EvalResult, current: EvalResult, seed = 1): Comparison {
  const before = new Map(baseline.cases.map((c) => [c.id, c]));
  const nowIds = new Set(current.cases.map((c) => c.id));
  const cases: CaseChange[] = [];
  for (const c of current.cases) {
    const b = before.get(c.id);
    if (!b || c.trials.every((t) => !isScored(t)) || b.trials.every((t) => !isScored(t))) continue;
    const was = facts(b);
    const now = facts(c);
    const change =
      now.passRate > was.passRate || (now.passRate === was.passRate && now.meanScore > was.meanScore + 1e-9)
        ? "improved"
        : now.passRate < was.passRate || now.meanScore < was.meanScore - 1e-9
          ? "regressed"
          : "unchanged";
    cases.push({ id: c.id, change, before: was, after: now });
  }
  const passed = (rate: number) => rate >= 0.5;
  const regressedPairs = cases.filter((c) => passed(c.before.passRate) && !passed(c.after.passRate)).length;
  const improvedPairs = cases.filter((c) => !passed(c.before.passRate) && passed(c.after.passRate)).length;
  const costsKnown = cases.every((c) => c.before.costUsd !== undefined && c.after.costUsd !== undefined);
  return {
    baseline: { id: baseline.id, name: baseline.name },
    current: { id: current.id, name: current.name },
    cases,
    improved: cases.filter((c) => c.change === "improved").length,
    regressed: cases.filter((c) => c.change === "regressed").length,
    unchanged: cases.filter((c) => c.change === "unchanged").length,
    onlyBaseline: baseline.cases.filter((c) => !nowIds.has(c.id)).map((c) => c.id),
    onlyCurrent: current.cases.filter((c) => !before.has(c.id)).map((c) => c.id),
    mcnemar: mcnemar(regressedPairs, improvedPairs),
    score: pairedBootstrap(
      cases.map((c) => c.before.meanScore),
      cases.map((c) => c.after.meanScore),
      { seed },
    ),
    passRateDelta: mean(cases.map((c) => c.after.passRate - c.before.passRate)),
    ...(costsKnown &&
      cases.length > 0 && {
        costDeltaUsd: mean(cases.map((c) => (c.after.costUsd as number) - (c.before.costUsd as number))),
      }),
    latencyDeltaMs: mean(cases.map((c) => c.after.latencyMs - c.before.latencyMs)),
  };
}
