import { useEffect, useState } from "preact/hooks";
import { type EvalRoute, evalHref, parseEvalRoute } from "./evals/eval-route.js";

/** Where the page is: the run list, a run and maybe one of its steps, or an eval page. */
export type Route = { page: "list" } | { page: "run"; runId: string; step?: number } | EvalRoute;

/** Parses `#/run/<id>/step/<n>`. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  const evalRoute = parseEvalRoute(parts);
  if (evalRoute) return evalRoute;
  if (parts[0] === "run" && parts[1]) {
    const step = parts[2] === "step" && parts[3] !== undefined ? Number(parts[3]) : undefined;
    return step !== undefined && Number.isInteger(step)
      ? { page: "run", runId: parts[1], step }
      : { page: "run", runId: parts[1] };
  }
  return { page: "list" };
}

/** The link of a route. */
export function href(route: Route): string {
  if (route.page === "list") return "#/";
  if (route.page !== "run") return evalHref(route);
  const base = `#/run/${encodeURIComponent(route.runId)}`;
  return route.step === undefined ? base : `${base}/step/${route.step}`;
}

/** The current route, following the hash. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
