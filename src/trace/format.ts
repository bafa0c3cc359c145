import { describeEntry, diffRequests } from "../core/request-diff.js";
import type { RunSummary } from "./run-summary.js";
import type { RunView, StepView, ToolCallView } from "./run-view.js";

/** A table of runs for `glassloop trace list`, newest first. */
export function formatRunList(runs: readonly RunSummary[]): string {
  if (runs.length === 0) return "No traces yet. Run an agent with --trace, or pass a trace file.";
  const rows = runs.map((r) => [
    r.runId,
    new Date(r.startedAt).toISOString().replace("T", " ").slice(0, 19),
    // `budget_exceeded (budget_exceeded)` says nothing twice: the code only when it adds something.
    r.status + (r.errorCode && r.errorCode !== r.status ? ` (${r.errorCode})` : ""),
    r.model,
    String(r.steps),
    formatInt(r.inputTokens + r.outputTokens),
    r.costUsd === undefined ? "-" : formatUsd(r.costUsd),
    r.durationMs === undefined ? "-" : formatMs(r.durationMs),
  ]);
  return table(["RUN", "STARTED", "STATUS", "MODEL", "STEPS", "TOKENS", "COST", "DURATION"], rows);
}

/** A readable step-by-step account of one run for `glassloop trace show`. */
export function formatRun(run: RunView, options: { file?: string } = {}): string {
  const out: string[] = [];
  const usage = run.usage;
  const tokens = usage ? usage.inputTokens + usage.outputTokens : undefined;
  out.push(
    [
      run.runId,
      run.model,
      run.status.toUpperCase(),
      countOf(run.steps.filter((s) => s.step > 0).length, "step"),
      tokens === undefined
        ? undefined
        : `${formatInt(tokens)} tokens (${usage?.inputTokens} in / ${usage?.outputTokens} out)`,
      usage?.costUsd === undefined ? undefined : formatUsd(usage.costUsd),
      run.durationMs === undefined ? undefined : formatMs(run.durationMs),
    ]
      .filter(Boolean)
      .join("  "),
  );
  if (options.file) out.push(`trace: ${options.file}`);
  out.push(`input: ${oneLine(run.input, 200)}`);
  if (run.workers) out.push(`workers: ${run.workers.map((w) => oneLine(w, 80)).join(", ")}`);
  const budget = formatBudget(run);
  if (budget) out.push(`budget: ${budget}`);
  for (const p of run.problems) out.push(`! trace line ${p.line}: ${p.message}`);
  let previous: unknown;
  for (const step of run.steps) {
    out.push("", ...formatStep(step, previous));
    const last = step.requests.at(-1);
    if (last) previous = last.body;
  }
  if (run.output !== undefined) out.push("", `output: ${oneLine(stringify(run.output), 400)}`);
  if (run.status === "incomplete") out.push("", "(no run_end: the run crashed or is still going)");
  return out.join("\n");
}

function formatStep(step: StepView, previous: unknown): string[] {
  const lines: string[] = [];
  const r = step.response;
  const head = [`step ${step.step}`, step.durationMs === undefined ? "" : formatMs(step.durationMs)];
  if (r) {
    head.push(
      `model ${formatMs(r.latencyMs)}`,
      `${r.usage.inputTokens} in / ${r.usage.outputTokens} out`,
      `finish ${r.finishReason}`,
    );
  }
  if (step.costUsd !== undefined) head.push(formatUsd(step.costUsd));
  if (step.workers) head.push(workersLabel(step.workers));
  lines.push(head.filter(Boolean).join("  "));
  for (const retry of step.retries) {
    lines.push(`  ↻ retry ${retry.attempt} after ${formatMs(retry.delayMs)}: ${oneLine(retry.error, 160)}`);
  }
  const request = step.requests.at(-1);
  if (request) {
    if (previous === undefined) lines.push(`  prompt: first request (${describeBody(request.body)})`);
    else {
      const diff = diffRequests(previous, request.body);
      if (diff.identical) lines.push("  prompt: identical to the previous request");
      else {
        lines.push("  prompt changes:");
        for (const entry of diff.entries.slice(0, 12)) lines.push(`    ${describeEntry(entry)}`);
        if (diff.entries.length > 12) lines.push(`    … ${diff.entries.length - 12} more`);
      }
    }
  }
  if (r?.text) lines.push(`  says: ${oneLine(r.text, 200)}`);
  // A step that changed workers says which of them ran each call.
  const moved = (step.workers?.length ?? 0) > 1;
  for (const tool of step.tools) lines.push(...formatTool(tool, moved));
  for (const g of step.guardrails ?? []) {
    const call = g.toolName === undefined ? "" : ` ${oneLine(g.toolName, 64)}`;
    const why = g.message === undefined ? "" : `: ${oneLine(g.message, 160)}`;
    lines.push(`  ⛨ guardrail ${oneLine(g.name, 64)} (${g.stage}${call}) ${g.action}${why}`);
  }
  if (step.error) lines.push(`  ✗ ${step.error.code}: ${step.error.message}`);
  return lines;
}

/** `worker w1`, or `workers w1 → w2` for a step a second worker finished after the first died. */
export function workersLabel(workers: readonly string[]): string {
  const names = workers.map((w) => oneLine(w, 80));
  return names.length === 1 ? `worker ${names[0]}` : `workers ${names.join(" → ")}`;
}

function formatTool(tool: ToolCallView, withWorker: boolean): string[] {
  const mark = tool.status === "ok" ? "→" : "✗";
  const duration = tool.durationMs ? ` ${formatMs(tool.durationMs)}` : "";
  const where = withWorker && tool.worker !== undefined ? ` on ${oneLine(tool.worker, 80)}` : "";
  const lines = [
    `  ${mark} ${tool.toolName} ${oneLine(tool.arguments, 120)}  ${tool.status ?? "no result"}${duration}${where}`,
  ];
  if (tool.content !== undefined) lines.push(`      ${oneLine(tool.content, 160)}`);
  if (tool.errorDetail) lines.push(`      detail: ${oneLine(tool.errorDetail, 200)}`);
  for (const sub of tool.subRuns) {
    const agent = sub.agent === undefined ? "" : `${sub.agent} `;
    lines.push(`      sub-run ${agent}${sub.runId} ${sub.model} ${sub.status} (${sub.steps.length} steps)`);
  }
  return lines;
}

function formatBudget(run: RunView): string {
  const usage = run.usage;
  const limits = run.limits;
  if (!usage || !limits) return "";
  const parts: string[] = [];
  const of = (name: string, used: number, max: number | undefined, fmt: (n: number) => string) => {
    if (max !== undefined)
      parts.push(`${name} ${fmt(used)}/${fmt(max)} (${Math.round((used / max) * 100)}%)`);
  };
  of("steps", usage.steps.length, limits.maxSteps ?? 15, String);
  of("toolCalls", usage.toolCalls, limits.maxToolCalls, String);
  of("tokens", usage.inputTokens + usage.outputTokens, limits.maxTokens, formatInt);
  of("cost", usage.costUsd ?? 0, limits.maxCostUsd, formatUsd);
  of("time", usage.durationMs, limits.timeoutMs, formatMs);
  return parts.join(" · ");
}

function describeBody(body: unknown): string {
  if (body === null || typeof body !== "object") return typeof body;
  const b = body as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of ["messages", "contents", "input", "tools"]) {
    const v = b[key];
    if (Array.isArray(v)) parts.push(countOf(v.length, key.replace(/s$/, "")));
  }
  return parts.join(", ") || `${Object.keys(b).length} fields`;
}

/** `1 message`, `2 messages`: `word` is the singular. */
function countOf(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `1.2 s`, `340 ms`. */
export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return ms >= 10 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`;
}

/** `$1.25`, `$0.0012`, `$0.000029`: two significant digits for small amounts. */
export function formatUsd(usd: number): string {
  if (usd === 0 || usd >= 0.01) return `$${usd.toFixed(2)}`;
  return `$${usd.toFixed(Math.min(8, 1 - Math.floor(Math.log10(usd))))}`;
}

function formatInt(n: number): string {
  return n.toLocaleString("en-US");
}

function stringify(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
