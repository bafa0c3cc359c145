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

/** Cumulative tokens per step as a small SVG line chart, with the token limit drawn when set. */
function TokenChart({ points, max }: { points: Point[]; max: number | undefined }) {
  if (points.length === 0) return null;
  const w = 320;
  const h = 110;
  const pad = 24;
  const top = Math.max(1, max ?? 0, ...points.map((p) => p.tokens));
  const x = (i: number) =>
    pad + (points.length === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (points.length - 1));
  const y = (v: number) => h - pad - (v / top) * (h - 2 * pad);
  const path = points
    .map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(p.tokens).toFixed(1)}`)
    .join(" ");
  return (
    <svg viewBox={`0 0 ${w} ${h}`} class="chart" role="img" aria-label="tokens used after each step">
      <line x1={pad} y1={h - pad} x2={w - pad} y2={h - pad} class="axis" />
      {max !== undefined && (
        <>
          <line x1={pad} y1={y(max)} x2={w - pad} y2={y(max)} class="limit" />
          <text x={w - pad} y={y(max) - 4} text-anchor="end" class="limit-label">
            maxTokens {max.toLocaleString()}
          </text>
        </>
      )}
      <path d={path} class="line" />
      {points.map((p, i) => (
        <g key={p.step}>
          <circle cx={x(i)} cy={y(p.tokens)} r={3} class="dot">
            <title>
              step {p.step}: {p.tokens.toLocaleString()} tokens
            </title>
          </circle>
          <text x={x(i)} y={h - pad + 14} text-anchor="middle" class="tick">
            {p.step}
          </text>
        </g>
      ))}
    </svg>
  );
}
