import { printedWidth } from "../cli/terminal-text.js";
import type { Comparison } from "./compare.js";
import { describeRule } from "./rule-text.js";
import { isScored } from "./summary.js";
import type { Estimate, EvalResult, TrialRecord } from "./types.js";

/** Colors for the report; plain text when left out. */
export interface ReportStyle {
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

const PLAIN: ReportStyle = {
  green: (t) => t,
  red: (t) => t,
  yellow: (t) => t,
  bold: (t) => t,
  dim: (t) => t,
};

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const ci = (e: Estimate) => `${pct(e.value)} [${pct(e.lo)}, ${pct(e.hi)}]`;
const num = (e: Estimate) => `${e.value.toFixed(2)} [${e.lo.toFixed(2)}, ${e.hi.toFixed(2)}]`;
const usd = (x: number) => `$${x < 0.01 ? x.toFixed(5) : x.toFixed(4)}`;
const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);

/** The terminal report: a table of cases × scorers, then the summary with its intervals. */
export function formatReport(result: EvalResult, style: ReportStyle = PLAIN): string {
  const header = ["case", "pass", ...result.scorers, "cost", "latency"];
  const rows = result.cases.map((c) => {
    const scored = c.trials.filter(isScored);
    const passed = scored.filter((t) => t.pass).length;
    // Unscored trials are named as result.json names them: aborted (stopped by the eval) or skipped.
    const unscored = c.trials.some((t) => t.status === "aborted") ? "aborted" : "skipped";
    const mark = scored.length === 0 ? style.dim(unscored) : cell(passed, scored.length, style);
    const perScorer = result.scorers.map((name) => {
      const scores = scored.flatMap((t) => t.scores.filter((s) => s.scorer === name));
      if (scores.length === 0) return "–";
      const m = scores.reduce((a, s) => a + s.score, 0) / scores.length;
      const ok = scores.every((s) => s.pass);
      const text = scores.length === 1 ? (ok ? "✓" : "✗") : m.toFixed(2);
      return ok ? style.green(text) : style.red(text);
    });
    const costs = scored.map((t) => t.costUsd);
    const cost =
      costs.length > 0 && costs.every((x) => x !== undefined)
        ? usd(sum(costs as number[]) / costs.length)
        : "–";
    const latency = scored.length > 0 ? ms(sum(scored.map((t) => t.latencyMs)) / scored.length) : "–";
    return [c.id, mark, ...perScorer, cost, latency];
  });
  const lines = [
    style.bold(`eval ${result.name}`) +
      style.dim(` · ${result.id}${result.model ? ` · ${result.model}` : ""}`),
    "",
  ];
  lines.push(...table([header, ...rows]));
  lines.push("");
  const s = result.summary;
  const n = result.config.repeat;
  lines.push(
    `pass rate   ${style.bold(ci(s.passRate))}  (${s.passed}/${s.scored} trials; ${describeRule(result.config.combine)}; 95% Wilson)`,
  );
  lines.push(`mean score  ${num(s.meanScore)}  (95% bootstrap)`);
  for (const sc of s.scorers) {
    lines.push(`  ${sc.scorer.padEnd(14)} mean ${num(sc.mean)}  pass ${ci(sc.passRate)}`);
  }
  if (n > 1)
    lines.push(`pass@k      ${s.passAtK.map((p, i) => `@${i + 1} ${pct(p)}`).join("  ")}  (repeat ${n})`);
  if (s.costPerTrial && s.costUsd !== undefined) {
    lines.push(
      `cost        ${usd(s.costUsd)} total · per trial median ${usd(s.costPerTrial.median)}, p95 ${usd(s.costPerTrial.p95)}` +
        (s.costPerPass !== undefined ? ` · per pass ${usd(s.costPerPass)}` : ""),
    );
  } else lines.push("cost        unknown (a model without a price)");
  lines.push(`latency     median ${ms(s.latencyMs.median)}, p95 ${ms(s.latencyMs.p95)}`);
  // Each failing trial: why, and where its trace is (relative to the result file).
  const failed = result.cases.flatMap((c) =>
    c.trials.filter((t) => isScored(t) && !t.pass).map((t) => [c.id, t] as const),
  );
  if (failed.length > 0) lines.push("");
  for (const [id, t] of failed.slice(0, 10)) {
    const why = t.error
      ? `${t.status} (${t.error.code}: ${clip(t.error.message, 100)})`
      : t.scores
          .filter((s) => !s.pass)
          .map((s) => `${s.scorer}: ${clip(s.reason, 80)}`)
          .join("; ");
    lines.push(style.yellow(`✗ ${id} r${t.repeat}: ${why}`) + (t.trace ? style.dim(` · ${t.trace}`) : ""));
  }
  if (failed.length > 10)
    lines.push(style.dim(`  … ${failed.length - 10} more failing trial(s) in the result file`));
  if (result.stopped) {
    const left = s.trials - s.scored;
    lines.push(
      style.yellow(
        `stopped early (${result.stopped === "budget" ? "the eval's maxCostUsd was reached" : "aborted"}): ${left} of ${s.trials} trial(s) did not run to a score`,
      ),
    );
  }
  return lines.join("\n");
}

function cell(passed: number, total: number, style: ReportStyle): string {
  const text = total === 1 ? (passed === 1 ? "pass" : "FAIL") : `${passed}/${total}`;
  return passed === total ? style.green(text) : passed === 0 ? style.red(text) : style.yellow(text);
}

/** The baseline comparison in a few lines. */
export function formatComparison(c: Comparison, style: ReportStyle = PLAIN): string {
  const lines = [style.bold(`against baseline ${c.baseline.id}`)];
  lines.push(
    `  ${style.green(`${c.improved} improved`)}, ${style.red(`${c.regressed} regressed`)}, ${c.unchanged} unchanged` +
      (c.onlyCurrent.length + c.onlyBaseline.length > 0
        ? style.dim(` (${c.onlyCurrent.length} new, ${c.onlyBaseline.length} gone: not compared)`)
        : ""),
  );
  for (const change of c.cases.filter((x) => x.change !== "unchanged")) {
    const paint = change.change === "improved" ? style.green : style.red;
    lines.push(
      `  ${paint(change.change === "improved" ? "+" : "-")} ${change.id}: pass ${pct(change.before.passRate)} → ${pct(change.after.passRate)}, score ${change.before.meanScore.toFixed(2)} → ${change.after.meanScore.toFixed(2)}`,
    );
  }
  lines.push(
    `  pass rate ${signed(c.passRateDelta * 100, "pp")}; McNemar exact p = ${c.mcnemar.pValue.toFixed(3)} (${c.mcnemar.improved} fail→pass, ${c.mcnemar.regressed} pass→fail)`,
  );
  lines.push(
    `  score ${signed(c.score.meanDifference, "")} [${c.score.lo.toFixed(3)}, ${c.score.hi.toFixed(3)}] per case; paired bootstrap p = ${c.score.pValue.toFixed(3)}`,
  );
  lines.push(
    `  cost ${c.costDeltaUsd === undefined ? "delta unknown" : `${c.costDeltaUsd >= 0 ? "+" : "-"}${usd(Math.abs(c.costDeltaUsd))} per trial`}; latency ${signed(c.latencyDeltaMs, " ms")} per trial`,
  );
  return lines.join("\n");
}

function signed(x: number, unit: string): string {
  const digits = Math.abs(x) >= 10 || unit === " ms" ? 0 : unit === "pp" ? 1 : 3;
  return `${x >= 0 ? "+" : ""}${x.toFixed(digits)}${unit}`;
}

function table(rows: string[][]): string[] {
  // Colors take no column; a control character takes the width of its printed escape.
  const visible = printedWidth;
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => visible(r[i] ?? ""))));
  const line = (r: string[]) =>
    r
      .map((cellText, i) => cellText + " ".repeat((widths[i] ?? 0) - visible(cellText)))
      .join("  ")
      .trimEnd();
  return [line(rows[0] ?? []), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)];
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A trial's one-word status, for JSON consumers and the viewer. */
export function trialMark(t: TrialRecord): string {
  return t.status === "ok" ? (t.pass ? "pass" : "fail") : t.status;
}
