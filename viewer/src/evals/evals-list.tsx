import { useFetch } from "../use-fetch.js";
import { fetchEvals } from "./eval-api.js";
import { evalHref } from "./eval-route.js";
import "./evals.css";

/** Every eval result, newest first, each linking to its table. */
export function EvalsList() {
  const loaded = useFetch(fetchEvals, "evals");
  if (loaded.state === "loading") return <p class="muted">Loading evals…</p>;
  if (loaded.state === "error") return <p class="error-box">Cannot load evals: {loaded.message}</p>;
  const evals = loaded.value.evals;
  if (evals.length === 0) return <p class="muted">No evals yet. Run one with glassloop eval &lt;file&gt;.</p>;
  return (
    <section>
      <h1>Evals</h1>
      <table class="runs" data-testid="evals-table">
        <thead>
          <tr>
            <th>eval</th>
            <th>name</th>
            <th>model</th>
            <th class="num">pass rate</th>
            <th class="num">trials</th>
            <th>started</th>
          </tr>
        </thead>
        <tbody>
          {evals.map((e) => (
            <tr key={e.id} data-eval-id={e.id} class={e.stopped ? "row-bad" : ""}>
              <td>
                <a class="mono" href={evalHref({ page: "eval", evalId: e.id })}>
                  {e.id}
                </a>
              </td>
              <td>{e.name}</td>
              <td class="mono">{e.model ?? "–"}</td>
              <td class="num">{(e.passRate * 100).toFixed(0)}%</td>
              <td class="num">
                {e.trials}
                {e.stopped && ` (stopped: ${e.stopped})`}
              </td>
              <td class="muted">{new Date(e.startedAt).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
