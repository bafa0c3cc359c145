import { useMemo, useState } from "preact/hooks";
import { formatMs, formatUsd } from "../../src/trace/format.js";
import type { RunSummary } from "../../src/trace/run-summary.js";
import { fetchRuns } from "./api.js";
import { href } from "./route.js";
import { StatusBadge } from "./status-badge.js";
import { useFetch } from "./use-fetch.js";

const STATUSES = ["all", "ok", "failed", "budget_exceeded", "aborted", "incomplete"] as const;

/** Every run, filterable by text (id, model, input, error) and by status. */
export function RunsList() {
  const loaded = useFetch(fetchRuns, "runs");
  const [text, setText] = useState("");
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("all");
  const runs = loaded.state === "ok" ? loaded.value.runs : [];
  const shown = useMemo(() => runs.filter((r) => matches(r, text, status)), [runs, text, status]);
  if (loaded.state === "loading") return <p class="muted">Loading runs…</p>;
  if (loaded.state === "error") return <p class="error-box">Cannot load runs: {loaded.message}</p>;
  return (
    <section>
      <div class="filters">
        <input
          type="search"
          placeholder="Filter by run id, model, input, error…"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
          data-testid="run-filter"
        />
        <select
          value={status}
          onChange={(e) => setStatus(e.currentTarget.value as typeof status)}
          data-testid="status-filter"
        >
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s === "all" ? "any status" : s}
            </option>
          ))}
        </select>
        <span class="muted">
          {shown.length} of {runs.length} runs
        </span>
      </div>
      {loaded.value.skipped.map((s) => (
        <p key={s} class="warn-box">
          Skipped {s}
        </p>
      ))}
      {runs.length === 0 ? (
        <p class="muted">No traces yet. Run an agent with --trace.</p>
      ) : (
        <table class="runs" data-testid="runs-table">
          <thead>
            <tr>
              <th>status</th>
              <th>run</th>
              <th>model</th>
              <th class="num">steps</th>
              <th class="num">tokens in / out</th>
              <th class="num">cost</th>
              <th class="num">duration</th>
              <th>started</th>
              <th>input</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.runId} class={r.status === "ok" ? "" : "row-bad"} data-run-id={r.runId}>
                <td class="status-cell">
                  <StatusBadge status={r.status} />
                  {/* As `trace list` shows it: the code, unless it only repeats the status. */}
                  {r.errorCode !== undefined && r.errorCode !== r.status && (
                    <span class="error-code mono" data-testid="error-code">
                      {r.errorCode}
                    </span>
                  )}
                </td>
                <td class="run-id-cell">
                  <a href={href({ page: "run", runId: r.runId })} class="mono run-id" title={r.runId}>
                    {r.runId}
                  </a>
                </td>
                <td class="mono model-cell">{r.model}</td>
                <td class="num">{r.steps}</td>
                <td class="num">
                  {r.inputTokens.toLocaleString()} / {r.outputTokens.toLocaleString()}
                </td>
                <td class="num">{r.costUsd === undefined ? "–" : formatUsd(r.costUsd)}</td>
                <td class="num">{r.durationMs === undefined ? "–" : formatMs(r.durationMs)}</td>
                <td class="muted">{new Date(r.startedAt).toLocaleString()}</td>
                <td class="clip" title={r.input}>
                  {r.input}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function matches(run: RunSummary, text: string, status: string): boolean {
  if (status !== "all" && run.status !== status) return false;
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  return [run.runId, run.model, run.input, run.errorCode ?? "", run.status].some((f) =>
    f.toLowerCase().includes(needle),
  );
}
