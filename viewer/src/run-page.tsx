import { useEffect, useState } from "preact/hooks";
import { formatMs, formatUsd } from "../../src/trace/format.js";
import { fetchRun, type ServedRun } from "./api.js";
import { BudgetPanel } from "./budget-panel.js";
import { JsonBlock } from "./json-block.js";
import { href } from "./route.js";
import { StatusBadge } from "./status-badge.js";
import { StepDetail } from "./step-detail.js";
import { Timeline } from "./timeline.js";
import { useFetch } from "./use-fetch.js";

/** One run: summary, budget, the timeline of steps, and the selected step in full. */
export function RunPage({ runId, step }: { runId: string; step: number | undefined }) {
  const [tick, setTick] = useState(0);
  const loaded = useFetch(() => fetchRun(runId), `${runId}#${tick}`);
  const live = loaded.state === "ok" && loaded.value.status === "incomplete";
  // A run still being written (or one that crashed) is polled, so the page follows it as it grows.
  useEffect(() => {
    if (!live) return;
    const timer = setTimeout(() => setTick((t) => t + 1), 2000);
    return () => clearTimeout(timer);
  }, [live, tick]);
  if (loaded.state === "loading") return <p class="muted">Loading {runId}…</p>;
  if (loaded.state === "error")
    return (
      <p class="error-box">
        Cannot load {runId}: {loaded.message}
      </p>
    );
  const run = loaded.value;
  const selected =
    run.steps.find((s) => s.step === step) ?? run.steps.find((s) => s.step > 0) ?? run.steps[0];
  return (
    <article data-testid="run-page">
      <p>
        <a href={href({ page: "list" })}>← all runs</a>
      </p>
      <RunHeader run={run} />
      {run.errors.map((e) => (
        <p key={e.time} class="error-box" data-testid="run-error">
          <strong>{e.code}</strong> after step {e.step}: {e.message}
        </p>
      ))}
      {run.problems.map((p) => (
        <p key={p.line} class="warn-box">
          trace line {p.line}: {p.message}
        </p>
      ))}
      <div class="run-grid">
        <section class="panel">
          <h2>Timeline</h2>
          <Timeline run={run} selected={selected?.step} />
        </section>
        <BudgetPanel run={run} />
      </div>
      {selected ? <StepDetail run={run} step={selected} /> : <p class="muted">This run has no steps.</p>}
      {run.output !== undefined && (
        <section class="panel">
          <h2>Output</h2>
          <JsonBlock value={run.output} />
        </section>
      )}
    </article>
  );
}

function RunHeader({ run }: { run: ServedRun }) {
  const u = run.usage;
  return (
    <section class="run-header">
      <h1>
        <StatusBadge status={run.status} /> <span class="mono">{run.runId}</span>
      </h1>
      <dl class="facts">
        {run.agent !== undefined && (
          <div class="fact" data-testid="run-agent">
            <dt>agent</dt>
            <dd class="mono">{run.agent}</dd>
          </div>
        )}
        {run.workers !== undefined && (
          <div class="fact" data-testid="run-workers">
            <dt>{run.workers.length === 1 ? "worker" : "workers"}</dt>
            <dd class="mono">{run.workers.join(", ")}</dd>
          </div>
        )}
        <div class="fact">
          <dt>model</dt>
          <dd class="mono">{run.model}</dd>
        </div>
        <div class="fact">
          <dt>steps</dt>
          <dd>{run.steps.filter((s) => s.step > 0).length}</dd>
        </div>
        {u && (
          <>
            <div class="fact">
              <dt>tokens</dt>
              <dd>
                {u.inputTokens.toLocaleString()} in / {u.outputTokens.toLocaleString()} out
                {u.cachedInputTokens > 0 && ` (${u.cachedInputTokens.toLocaleString()} cached)`}
              </dd>
            </div>
            <div class="fact">
              <dt>tool calls</dt>
              <dd>{u.toolCalls}</dd>
            </div>
            <div class="fact">
              <dt>cost</dt>
              <dd>{u.costUsd === undefined ? "unknown price" : formatUsd(u.costUsd)}</dd>
            </div>
          </>
        )}
        <div class="fact">
          <dt>duration</dt>
          <dd>{run.durationMs === undefined ? "–" : formatMs(run.durationMs)}</dd>
        </div>
        <div class="fact">
          <dt>started</dt>
          <dd>{new Date(run.startedAt).toLocaleString()}</dd>
        </div>
        <div class="fact">
          <dt>trace</dt>
          <dd class="mono">{run.file}</dd>
        </div>
      </dl>
      <p class="input">
        <span class="muted">input</span> {run.input}
      </p>
    </section>
  );
}
