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
      </header>
      <main>{route.page === "list" ? <RunsList /> : <RunPage runId={route.runId} step={route.step} />}</main>
    </>
  );
}
