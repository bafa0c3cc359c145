import { useState } from "preact/hooks";
import type { CaseRecord, TrialRecord } from "../../../src/evals/types.js";
import { fetchRun, type ServedRun } from "../api.js";
import { RequestDiffView } from "../diff-view.js";
import { JsonBlock } from "../json-block.js";
import { href } from "../route.js";
import { StatusBadge } from "../status-badge.js";
import { useFetch } from "../use-fetch.js";
import { fetchEval, type ServedEval } from "./eval-api.js";
import { evalHref } from "./eval-route.js";
import "./evals.css";

/** The agent's requests of a trial, in order across its runs (a router and its specialist). */
async function requestsOf(trial: TrialRecord | undefined): Promise<unknown[]> {
  if (!trial) return [];
  const runs: ServedRun[] = await Promise.all(trial.runIds.map((id) => fetchRun(id)));
  return runs.flatMap((run) => run.steps.flatMap((s) => s.requests.slice(-1).map((r) => r.body)));
}

/**
 * One case, side by side in two evals: each trial's status, output, scores and reasons, a link to
 * its run, and what the model saw differently (the request diff, step by step).
 */
export function EvalCasePage({
  evalId,
  caseId,
  vs,
}: {
  evalId: string;
  caseId: string;
  vs: string | undefined;
}) {
  const left = useFetch(() => fetchEval(evalId), `eval:${evalId}`);
  const right = useFetch(() => (vs ? fetchEval(vs) : Promise.resolve(undefined)), `eval:${vs ?? "-"}`);
  if (left.state !== "ok") return <p class="muted">{left.state === "error" ? left.message : "Loading…"}</p>;
  const a = left.value;
  const b = right.state === "ok" ? right.value : undefined;
  const ca = a.cases.find((c) => c.id === caseId);
  const cb = b?.cases.find((c) => c.id === caseId);
  if (!ca)
    return (
      <p class="error-box">
        No case {caseId} in {evalId}
      </p>
    );
  return (
    <article data-testid="eval-case">
      <p>
        <a href={evalHref({ page: "eval", evalId })}>← {a.name}</a>
      </p>
      <h1>
        case <span class="mono">{caseId}</span>
      </h1>
      <p class="input">
        <span class="muted">input</span> {ca.input}
      </p>
      <div class="columns" data-testid="side-by-side">
        <CaseColumn ev={a} c={ca} />
        {b ? (
          cb ? (
            <CaseColumn ev={b} c={cb} />
          ) : (
            <p class="muted">
              No case {caseId} in {b.id}
            </p>
          )
        ) : (
          <p class="muted">Pick an eval to compare with on the eval's page.</p>
        )}
      </div>
      {b && cb && <SeenDifferently a={ca} b={cb} />}
    </article>
  );
}

function CaseColumn({ ev, c }: { ev: ServedEval; c: CaseRecord }) {
  return (
    <div class="panel" data-eval-id={ev.id}>
      <h2>
        <a href={evalHref({ page: "eval", evalId: ev.id })} class="mono">
          {ev.id}
        </a>
      </h2>
      {c.trials.map((t) => (
        <section key={t.repeat} data-testid="trial">
          <h3>
            trial {t.repeat}{" "}
            <StatusBadge status={t.status === "ok" ? (t.pass ? "ok" : "failed") : t.status} />{" "}
            {t.runIds[0] && (
              <a href={href({ page: "run", runId: t.runIds[0] })} class="mono">
                run timeline →
              </a>
            )}
          </h3>
          <ul class="score-list">
            {t.scores.map((s) => (
              <li key={s.scorer} class={s.pass ? "" : "bad-text"}>
                <strong>{s.scorer}</strong> {s.score.toFixed(2)} {s.pass ? "✓" : "✗"} — {s.reason}
                {s.judgeRunIds?.[0] && (
                  <>
                    {" "}
                    <a
                      href={href({ page: "run", runId: s.judgeRunIds[0] })}
                      class="mono"
                      data-testid="judge-run"
                    >
                      judge's run →
                    </a>
                  </>
                )}
              </li>
            ))}
          </ul>
          {t.error && (
            <p class="error-box">
              {t.error.code}: {t.error.message}
            </p>
          )}
          {t.output !== undefined && <JsonBlock value={t.output} testid="trial-output" />}
        </section>
      ))}
    </div>
  );
}

function SeenDifferently({ a, b }: { a: CaseRecord; b: CaseRecord }) {
  const [index, setIndex] = useState(0);
  const key = `${a.trials[0]?.runIds.join()}|${b.trials[0]?.runIds.join()}`;
  const loaded = useFetch(() => Promise.all([requestsOf(a.trials[0]), requestsOf(b.trials[0])]), key);
  if (loaded.state !== "ok")
    return <p class="muted">{loaded.state === "error" ? loaded.message : "Loading the requests…"}</p>;
  const [left, right] = loaded.value;
  const steps = Math.max(left.length, right.length);
  if (steps === 0) return null;
  return (
    <section class="panel" data-testid="seen-differently">
      <h2>What the model saw differently (trial 1)</h2>
      <div class="tabs">
        {Array.from({ length: steps }, (_, i) => (
          <button type="button" key={i} class={i === index ? "on" : ""} onClick={() => setIndex(i)}>
            request {i + 1}
          </button>
        ))}
      </div>
      <RequestDiffView before={left[index] ?? null} after={right[index] ?? null} />
    </section>
  );
}
