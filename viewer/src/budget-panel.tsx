import { formatMs, formatUsd } from "../../src/trace/format.js";
import type { ServedRun } from "./api.js";

interface Point {
  step: number;
  tokens: number;
  cost?: number;
  toolCalls: number;
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
      <TokenChart points={points} max={limits.maxTokens} />
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
      const u = s.usage;
      if (u)
        return {
          step: s.step,
          tokens: u.inputTokens + u.outputTokens,
          toolCalls: u.toolCalls,
          ...(u.costUsd !== undefined && { cost: u.costUsd }),
        };
      return { step: s.step, tokens, toolCalls };
    });
}

/**
 * Cumulative tokens per step as a small SVG line chart: axes with their units and ticks, the token
 * limit when set, a legend. The line starts at step 0 with 0 tokens, so a one-step run is a line
 * from the start, not a lone dot.
 */
function TokenChart({ points, max }: { points: Point[]; max: number | undefined }) {
  if (points.length === 0) return null;
  const w = 340;
  const h = 150;
  const left = 46;
  const right = 12;
  const top = 12;
  const bottom = 34;
  const series = [{ step: 0, tokens: 0 }, ...points];
  const scaleTop = Math.max(1, max ?? 0, ...points.map((p) => p.tokens));
  const x = (i: number) => left + (i * (w - left - right)) / (series.length - 1);
  const y = (v: number) => h - bottom - (v / scaleTop) * (h - top - bottom);
  const path = series
    .map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(p.tokens).toFixed(1)}`)
    .join(" ");
  // Step labels thin out on long runs so they never run into each other.
  const every = Math.max(1, Math.ceil(series.length / 12));
  return (
    <figure class="chart-figure">
      <svg viewBox={`0 0 ${w} ${h}`} class="chart" role="img" aria-label="tokens used after each step">
        <line x1={left} y1={h - bottom} x2={w - right} y2={h - bottom} class="axis" />
        <line x1={left} y1={top} x2={left} y2={h - bottom} class="axis" />
        {[0, scaleTop].map((v) => (
          <text key={v} x={left - 5} y={y(v) + 3} text-anchor="end" class="y-tick">
            {v.toLocaleString("en-US")}
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
          tokens (cumulative)
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
        {max !== undefined && <line x1={left} y1={y(max)} x2={w - right} y2={y(max)} class="limit" />}
        <path d={path} class="line" />
        {series.map((p, i) => (
          <g key={p.step}>
            {i > 0 && (
              <circle cx={x(i)} cy={y(p.tokens)} r={3} class="dot">
                <title>
                  step {p.step}: {p.tokens.toLocaleString()} tokens
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
          <span class="key key-line" /> tokens used (input + output), after each step
        </span>
        {max !== undefined && (
          <span>
            <span class="key key-limit" /> maxTokens {max.toLocaleString("en-US")}
          </span>
        )}
      </figcaption>
    </figure>
  );
}
