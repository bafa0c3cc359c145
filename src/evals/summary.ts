import { bootstrapMean, mean, passAtK, spread, wilson } from "./stats.js";
import type { CaseRecord, Estimate, EvalSummary, ScorerSummary, TrialRecord } from "./types.js";

/** Whether a trial ran to a score: skipped trials and ones the eval aborted are not evidence. */
export function isScored(trial: TrialRecord): boolean {
  return trial.status !== "skipped" && trial.status !== "aborted";
}

/** A case's numbers over its scored trials. */
export function summarizeCase(
  base: Omit<CaseRecord, "passRate" | "passAtK" | "meanScore" | "latencyMs" | "costUsd">,
): CaseRecord {
  const scored = base.trials.filter(isScored);
  const passed = scored.filter((t) => t.pass).length;
  const costs = scored.map((t) => t.costUsd);
  const known = scored.length > 0 && costs.every((c) => c !== undefined);
  return {
    ...base,
    passRate: scored.length === 0 ? 0 : passed / scored.length,
    passAtK: scored.map((_, i) => passAtK(scored.length, passed, i + 1)),
    meanScore: mean(scored.map((t) => t.score)),
    latencyMs: spread(scored.map((t) => t.latencyMs)),
    ...(known && { costUsd: spread(costs as number[]) }),
  };
}

function proportion(successes: number, n: number): Estimate {
  return { ...wilson(successes, n), method: "wilson", n };
}

function meanOf(values: number[], seed: number): Estimate {
  return { ...bootstrapMean(values, { seed }), method: "bootstrap", n: values.length };
}

/**
 * The eval's numbers: pass rate (Wilson), mean score and per-scorer means (bootstrap, seeded, so a
 * report is reproducible), pass@k, cost and latency spreads. Intervals count trials as
 * independent; with `repeat` > 1, read the per-case pass rates too.
 */
export function summarize(
  cases: readonly CaseRecord[],
  scorerNames: readonly string[],
  seed = 1,
): EvalSummary {
  const all = cases.flatMap((c) => c.trials);
  const scored = all.filter(isScored);
  const passed = scored.filter((t) => t.pass).length;
  const scorers: ScorerSummary[] = scorerNames.map((name) => {
    const records = scored.flatMap((t) => t.scores.filter((s) => s.scorer === name));
    return {
      scorer: name,
      mean: meanOf(
        records.map((r) => r.score),
        seed,
      ),
      passRate: proportion(records.filter((r) => r.pass).length, records.length),
    };
  });
  const repeat = Math.max(0, ...cases.map((c) => c.passAtK.length));
  const passAtKs: number[] = [];
  for (let k = 1; k <= repeat; k++) {
    const withK = cases.filter((c) => c.passAtK.length >= k);
    passAtKs.push(mean(withK.map((c) => c.passAtK[k - 1] as number)));
  }
  const costs = scored.map((t) => t.costUsd);
  const known = costs.every((c) => c !== undefined) && scored.length > 0;
  const total = all.reduce((sum, t) => sum + (t.costUsd ?? 0), 0);
  const summary: EvalSummary = {
    trials: all.length,
    scored: scored.length,
    passed,
    passRate: proportion(passed, scored.length),
    meanScore: meanOf(
      scored.map((t) => t.score),
      seed,
    ),
    scorers,
    passAtK: passAtKs,
    latencyMs: spread(scored.map((t) => t.latencyMs)),
  };
  if (known) {
    summary.costUsd = total;
    summary.costPerTrial = spread(costs as number[]);
    if (passed > 0) summary.costPerPass = total / passed;
  }
  return summary;
}
