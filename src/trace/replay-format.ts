import type { Style } from "../cli/style.js";
import { describeValue } from "../core/request-diff.js";
import type { ReplayReport } from "./replay.js";

/** The terminal report of `trace replay`: reproduced, forked, or where it first diverged. */
export function formatReplayReport(
  report: ReplayReport,
  style: Pick<Style, "green" | "red" | "yellow" | "bold" | "dim">,
): string {
  const recorded = report.recorded;
  const steps = recorded.steps.filter((s) => s.step > 0).length;
  const lines: string[] = [];
  const d = report.divergence;
  if (report.status === "reproduced") {
    lines.push(
      `${style.green("reproduced")} ${recorded.runId}: ${steps} step(s); every request and tool result matched the recording`,
    );
  } else if (report.status === "forked" && !d) {
    lines.push(`${style.yellow("forked")} ${recorded.runId} into ${report.runId ?? "a new run"}`);
  } else if (d) {
    lines.push(`${style.red("diverged")} at step ${style.bold(String(d.step))} (${d.kind}: ${d.where})`);
    lines.push(`  ${d.message}`);
    if (d.kind === "request" || d.kind === "tool_result") {
      lines.push(`  recorded: ${describeValue(d.recorded, 200)}`);
      lines.push(`  now:      ${describeValue(d.actual, 200)}`);
    }
  }
  if (report.output !== undefined) lines.push(`output: ${describeValue(report.output, 300)}`);
  if (report.error && !d) lines.push(`ended with ${report.error.code}: ${report.error.message}`);
  if (report.runId) lines.push(style.dim(`replayed run: ${report.runId}`));
  return lines.join("\n");
}
