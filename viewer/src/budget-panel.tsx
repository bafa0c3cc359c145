import { formatMs, formatUsd } from "../../src/trace/format.js";
import type { ServedRun } from "./api.js";

interface Point {
  step: number;
  tokens: number;
  cost?: number;
  toolCalls: number;
  /** Milliseconds from the run's start to the end of this step. */
  ms: number;
}

/** What the chart draws: the first of tokens, tool calls and time that this run used. */
interface Measure {
  label: string;
  legend: string;
  values: number[];
  limit?: { name: string; value: number };
  fmt: (n: number) => string;
}

/** Tokens (and cost, tool calls) used after each step, against the run's limits where it had any. */
export function BudgetPanel({ run }: { run: ServedRun }) {
  const points = consumption(run);
  const limits = run.limits ?? {};
  const last = points.at(-1);
  const bars: { name: string; used: number; max?: number; fmt: (n: number) => string }[] = [
    { name: "steps", used: points.length, max: limits.maxSteps ?? 15, fmt: String },
    { name: "tokens", used: last?.tokens ?? 0, max: limits.maxTokens, fmt: (n) => n.toLocaleString() },
    { name: "tool calls", used: last?.toolCalls ?? 0, max: limits.maxToolCalls, fmt: String },
  ];
  if (last?.cost !== undefined)
    bars.push({ name: "cost", used: last.cost, max: limits.maxCostUsd, fmt: formatUsd });
  if (run.durationMs !== undefined)
    bars.push({ name: "time", used: run.durationMs, max: limits.timeoutMs, fmt: formatMs });
  return (
    <section class="panel" data-testid="budget">
      <h2>Budget</h2>
      <UsageChart points={points} measure={measureOf(run, points)} />
      <table class="budget">
        <tbody>
          {bars.map((b) => {
            const share = b.max ? Math.min(1, b.used / b.max) : undefined;
            return (
              <tr key={b.name}>
                <th>{b.name}</th>
                <td class="num">
                  {b.fmt(b.used)}
                  {b.max !== undefined && ` / ${b.fmt(b.max)}`}
                </td>
                <td class="meter">
                  {share !== undefined && (
                    <span
                      class={`fill ${share >= 1 ? "full" : share > 0.8 ? "high" : ""}`}
                      style={{ width: `${share * 100}%` }}
                    />
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function consumption(run: ServedRun): Point[] {
  let tokens = 0;
  let toolCalls = 0;
  return run.steps
    .filter((s) => s.step > 0)
    .map((s) => {
      tokens += (s.response?.usage.inputTokens ?? 0) + (s.response?.usage.outputTokens ?? 0);
      toolCalls += s.tools.filter(
        (t) => t.status !== "not_executed" && t.status !== "invalid" && t.status !== "repeated",
      ).length;
      const ms = s.offsetMs + (s.durationMs ?? 0);
      const u = s.usage;
      if (u)
        return {
          step: s.step,
          tokens: u.inputTokens + u.outputTokens,
          toolCalls: u.toolCalls,
          ms,
          ...(u.costUsd !== undefined && { cost: u.costUsd }),
        };
      return { step: s.step, tokens, toolCalls, ms };
    });
}

/**
 * Tokens when the run reported any. A run without token counts (a replayed recording that holds
 * none, a server that sends no usage) would draw a flat line at 0, so its chart shows what it did
 * use: its tool calls, else its time, each against its own limit, and the legend says why.
 */
function measureOf(run: ServedRun, points: Point[]): Measure {
  const limits = run.limits ?? {};
  const limit = (name: string, value: number | undefined) =>
    value === undefined ? {} : { limit: { name, value } };
  if (points.some((p) => p.tokens > 0))
    return {
      label: "tokens (cumulative)",
      legend: "tokens used (input + output), after each step",
      values: points.map((p) => p.tokens),
      ...limit("maxTokens", limits.maxTokens),
      fmt: (n) => n.toLocaleString("en-US"),
    };
  const why = run.model.startsWith("replay:")
    ? "replayed answers carry the token counts of their recording, and this one holds none"
    : "the model reported no token counts";
  if (points.some((p) => p.toolCalls > 0))
    return {
      label: "tool calls (cumulative)",
      legend: `tool calls, after each step (no tokens: ${why})`,
      values: points.map((p) => p.toolCalls),
      ...limit("maxToolCalls", limits.maxToolCalls),
      fmt: String,
    };
  return {
    label: "time (ms)",
    legend: `time since the run started, after each step (no tokens: ${why}; no tool calls)`,
    values: points.map((p) => p.ms),
    ...limit("timeoutMs", limits.timeoutMs),
    fmt: (n) => Math.round(n).toLocaleString("en-US"),
  };
}

/**
 * A measure per step as a small SVG line chart: axes with their units and ticks, the measure's
 * limit when set, a legend. The line starts at step 0 with 0, so a one-step run is a line from the
 * start, not a lone dot.
 */
function UsageChart({ points, measure }: { points: Point[]; measure: Measure }) {
  if (points.length === 0) return null;
  const w = 340;
  const h = 150;
  const left = 46;
  const right = 12;
  const top = 12;
  const bottom = 34;
  const { label, legend, limit, fmt } = measure;
  const series = [
    { step: 0, value: 0 },
    ...points.map((p, i) => ({ step: p.step, value: measure.values[i] ?? 0 })),
  ];
  const scaleTop = Math.max(1, limit?.value ?? 0, ...series.map((p) => p.value));
  const x = (i: number) => left + (i * (w - left - right)) / (series.length - 1);
  const y = (v: number) => h - bottom - (v / scaleTop) * (h - top - bottom);
  const path = series
    .map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`)
    .join(" ");
  // Step labels thin out on long runs so they never run into each other.
  const every = Math.max(1, Math.ceil(series.length / 12));
  return (
    <figure class="chart-figure">
      <svg viewBox={`0 0 ${w} ${h}`} class="chart" role="img" aria-label={`${label} after each step`}>
        <line x1={left} y1={h - bottom} x2={w - right} y2={h - bottom} class="axis" />
        <line x1={left} y1={top} x2={left} y2={h - bottom} class="axis" />
        {[0, scaleTop].map((v) => (
          <text key={v} x={left - 5} y={y(v) + 3} text-anchor="end" class="y-tick">
            {fmt(v)}
          </text>
        ))}
        <text
          x={10}
          y={(top + h - bottom) / 2}
          text-anchor="middle"
          transform={`rotate(-90 10 ${(top + h - bottom) / 2})`}
          class="axis-label"
          data-testid="y-axis-label"
        >
          {label}
        </text>
        <text
          x={(left + w - right) / 2}
          y={h - 4}
          text-anchor="middle"
          class="axis-label"
          data-testid="x-axis-label"
        >
          step
        </text>
        {limit !== undefined && (
          <line x1={left} y1={y(limit.value)} x2={w - right} y2={y(limit.value)} class="limit" />
        )}
        <path d={path} class="line" />
        {series.map((p, i) => (
          <g key={p.step}>
            {i > 0 && (
              <circle cx={x(i)} cy={y(p.value)} r={3} class="dot">
                <title>
                  step {p.step}: {fmt(p.value)} {label.replace(/ \(.*\)$/, "")}
                </title>
              </circle>
            )}
            {(i % every === 0 || i === series.length - 1) && (
              <text x={x(i)} y={h - bottom + 13} text-anchor="middle" class="tick">
                {p.step}
              </text>
            )}
          </g>
        ))}
      </svg>
      <figcaption class="legend" data-testid="budget-legend">
        <span>
          <span class="key key-line" /> {legend}
        </span>
        {limit !== undefined && (
          <span>
            <span class="key key-limit" /> {limit.name} {fmt(limit.value)}
          </span>
        )}
      </figcaption>
    </figure>
  );
}
