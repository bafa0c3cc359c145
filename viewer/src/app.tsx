import { EvalCasePage } from "./evals/eval-case.js";
import { EvalPage } from "./evals/eval-page.js";
import { EvalsList } from "./evals/evals-list.js";
import { useRoute } from "./route.js";
import { RunPage } from "./run-page.js";
import { RunsList } from "./runs-list.js";

/** The viewer: a list of runs, or one run's timeline and steps. */
export function App() {
  const route = useRoute();
  return (
    <>
      <header class="top">
        <a href="#/" class="brand">
          glassloop <span>traces</span>
        </a>
        <a href="#/evals" class="nav" data-testid="nav-evals">
          evals
        </a>
      </header>
      <main>
        {route.page === "list" ? (
          <RunsList />
        ) : route.page === "run" ? (
          <RunPage runId={route.runId} step={route.step} />
        ) : route.page === "evals" ? (
          <EvalsList />
        ) : route.page === "eval" ? (
          <EvalPage evalId={route.evalId} failing={route.failing} />
        ) : (
          <EvalCasePage evalId={route.evalId} caseId={route.caseId} vs={route.vs} />
        )}
      </main>
    </>
  );
}
