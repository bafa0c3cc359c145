import { useState } from "preact/hooks";
import { describeRule } from "../../../src/evals/rule-text.js";
import type { CaseRecord, Estimate } from "../../../src/evals/types.js";
import { formatMs, formatUsd } from "../../../src/trace/format.js";
import { href } from "../route.js";
import { useFetch } from "../use-fetch.js";
import { fetchEval, fetchEvals, type ServedEval } from "./eval-api.js";
import { evalHref } from "./eval-route.js";
import "./evals.css";

const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
const ci = (e: Estimate) => `${pct(e.value)} [${pct(e.lo)}, ${pct(e.hi)}]`;

/** Whether a case has a scored trial where `scorer` failed (any scorer when empty). */
function failsOn(c: CaseRecord, scorer: string | undefined): boolean {
  return c.trials.some(
    (t) =>
      t.status !== "skipped" &&
      t.status !== "aborted" &&
      (scorer ? t.scores.some((s) => s.scorer === scorer && !s.pass) : !t.pass),
  );
}

/** One eval: its summary with intervals, the table of cases × scorers, filtered by a failing scorer. */
export function EvalPage({ evalId, failing }: { evalId: string; failing: string | undefined }) {
  const loaded = useFetch(() => fetchEval(evalId), `eval:${evalId}`);
  const others = useFetch(fetchEvals, "evals");
  const [vs, setVs] = useState("");
  if (loaded.state === "loading") return <p class="muted">Loading {evalId}…</p>;
  if (loaded.state === "error")
    return (
      <p class="error-box">
        Cannot load {evalId}: {loaded.message}
      </p>
    );
  const ev = loaded.value;
  const filter = failing === "*" ? undefined : failing;
  const shown = failing === undefined ? ev.cases : ev.cases.filter((c) => failsOn(c, filter));
  const comparable = others.state === "ok" ? others.value.evals.filter((e) => e.id !== ev.id) : [];
  return (
    <article data-testid="eval-page">
      <p>
        <a href={evalHref({ page: "evals" })}>← all evals</a>
      </p>
      <Summary ev={ev} />
      <div class="filters">
        <label>
          show{" "}
          <select
            data-testid="failing-filter"
            value={failing ?? ""}
            onChange={(e) => {
              const value = e.currentTarget.value;
              location.hash = evalHref(
                value ? { page: "eval", evalId, failing: value } : { page: "eval", evalId },
              );
            }}
          >
            <option value="">every case</option>
            <option value="*">cases that fail</option>
            {ev.scorers.map((s) => (
              <option key={s} value={s}>
                cases failing {s}
              </option>
            ))}
          </select>
        </label>
        {comparable.length > 0 && (
          <label>
            compare with{" "}
            <select data-testid="compare-with" value={vs} onChange={(e) => setVs(e.currentTarget.value)}>
              <option value="">(no other eval)</option>
              {comparable.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.id} ({o.name}, {pct(o.passRate)})
                </option>
              ))}
            </select>
          </label>
        )}
        <span class="muted">
          {shown.length} of {ev.cases.length} cases
        </span>
      </div>
      <table class="runs" data-testid="eval-table">
        <thead>
          <tr>
            <th>case</th>
            <th>pass</th>
            {ev.scorers.map((s) => (
              <th key={s}>{s}</th>
            ))}
            <th class="num">cost</th>
            <th class="num">latency</th>
            <th>runs</th>
            <th>input</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((c) => (
            <CaseRow key={c.id} ev={ev} c={c} vs={vs} />
          ))}
        </tbody>
      </table>
    </article>
  );
}

function Summary({ ev }: { ev: ServedEval }) {
  const s = ev.summary;
  return (
    <section class="run-header eval-summary" data-testid="eval-summary">
      <h1>
        {ev.name} <span class="mono muted">{ev.id}</span>
      </h1>
      <dl class="facts">
        <div class="fact">
          <dt>pass rate</dt>
          <dd>
            {ci(s.passRate)}{" "}
            <span class="ci">
              95% Wilson, {s.passed}/{s.scored} trials
            </span>
          </dd>
        </div>
        <div class="fact">
          <dt>mean score</dt>
          <dd>
            {s.meanScore.value.toFixed(2)}{" "}
            <span class="ci">
              [{s.meanScore.lo.toFixed(2)}, {s.meanScore.hi.toFixed(2)}]
            </span>
          </dd>
        </div>
        {ev.config.repeat > 1 && (
          <div class="fact">
            <dt>pass@k</dt>
            <dd>{s.passAtK.map((p, i) => `@${i + 1} ${pct(p)}`).join("  ")}</dd>
          </div>
        )}
        <div class="fact">
          <dt>cost</dt>
          <dd>{s.costUsd === undefined ? "unknown" : formatUsd(s.costUsd)}</dd>
        </div>
        <div class="fact">
          <dt>latency</dt>
          <dd>
            median {formatMs(s.latencyMs.median)}, p95 {formatMs(s.latencyMs.p95)}
          </dd>
        </div>
        <div class="fact">
          <dt>rule</dt>
          <dd>{describeRule(ev.config.combine)}</dd>
        </div>
        {ev.model && (
          <div class="fact">
            <dt>model</dt>
            <dd class="mono">{ev.model}</dd>
          </div>
        )}
      </dl>
      {ev.stopped && <p class="warn-box">Stopped early ({ev.stopped}): what finished is shown.</p>}
      <ul class="score-list">
        {s.scorers.map((sc) => (
          <li key={sc.scorer}>
            <strong>{sc.scorer}</strong> mean {sc.mean.value.toFixed(2)}{" "}
            <span class="ci">
              [{sc.mean.lo.toFixed(2)}, {sc.mean.hi.toFixed(2)}]
            </span>{" "}
            · pass {ci(sc.passRate)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function CaseRow({ ev, c, vs }: { ev: ServedEval; c: CaseRecord; vs: string }) {
  const scored = c.trials.filter((t) => t.status !== "skipped" && t.status !== "aborted");
  const passed = scored.filter((t) => t.pass).length;
  const costs = scored.map((t) => t.costUsd);
  const cost =
    costs.length > 0 && costs.every((x) => x !== undefined)
      ? formatUsd((costs as number[]).reduce((a, b) => a + b, 0) / costs.length)
      : "–";
  const latency =
    scored.length > 0 ? formatMs(scored.reduce((a, t) => a + t.latencyMs, 0) / scored.length) : "–";
  return (
    <tr data-case-id={c.id} class={passed === scored.length && scored.length > 0 ? "" : "row-bad"}>
      <td>
        <a
          class="mono"
          href={evalHref({ page: "eval-case", evalId: ev.id, caseId: c.id, ...(vs && { vs }) })}
        >
          {c.id}
        </a>
      </td>
      <td class={passed === scored.length && scored.length > 0 ? "mark-pass" : "mark-fail"}>
        {scored.length === 0 ? "skipped" : `${passed}/${scored.length}`}
      </td>
      {ev.scorers.map((name) => {
        const scores = scored.flatMap((t) => t.scores.filter((s) => s.scorer === name));
        const ok = scores.length > 0 && scores.every((s) => s.pass);
        const mean =
          scores.length === 0 ? undefined : scores.reduce((a, s) => a + s.score, 0) / scores.length;
        return (
          <td
            key={name}
            class={ok ? "mark-pass" : "mark-fail"}
            title={scores.map((s) => s.reason).join("\n")}
            data-scorer={name}
          >
            {mean === undefined ? "–" : scores.length === 1 ? (ok ? "✓" : "✗") : mean.toFixed(2)}
          </td>
        );
      })}
      <td class="num">{cost}</td>
      <td class="num">{latency}</td>
      <td class="trial-links">
        {c.trials.map((t) =>
          t.runIds[0] ? (
            <a
              key={t.repeat}
              class="mono"
              href={href({ page: "run", runId: t.runIds[0] })}
              data-testid="trial-run"
            >
              r{t.repeat}
            </a>
          ) : (
            <span key={t.repeat} class="muted">
              r{t.repeat}
            </span>
          ),
        )}
      </td>
      <td class="clip" title={c.input}>
        {c.input}
      </td>
    </tr>
  );
}
