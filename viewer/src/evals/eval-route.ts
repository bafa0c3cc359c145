/** The eval pages' places: the list, one eval (maybe filtered by a failing scorer), one case side by side. */
export type EvalRoute =
  | { page: "evals" }
  | { page: "eval"; evalId: string; failing?: string }
  | { page: "eval-case"; evalId: string; caseId: string; vs?: string };

/** Parses `evals`, `eval/<id>[/failing/<scorer>]`, `eval/<id>/case/<caseId>[/vs/<otherId>]` (decoded parts). */
export function parseEvalRoute(parts: string[]): EvalRoute | undefined {
  if (parts[0] === "evals") return { page: "evals" };
  if (parts[0] !== "eval" || !parts[1]) return undefined;
  const evalId = parts[1];
  if (parts[2] === "case" && parts[3]) {
    return parts[4] === "vs" && parts[5]
      ? { page: "eval-case", evalId, caseId: parts[3], vs: parts[5] }
      : { page: "eval-case", evalId, caseId: parts[3] };
  }
  if (parts[2] === "failing" && parts[3]) return { page: "eval", evalId, failing: parts[3] };
  return { page: "eval", evalId };
}

/** The link of an eval route. */
export function evalHref(route: EvalRoute): string {
  const e = encodeURIComponent;
  if (route.page === "evals") return "#/evals";
  if (route.page === "eval")
    return `#/eval/${e(route.evalId)}${route.failing ? `/failing/${e(route.failing)}` : ""}`;
  return `#/eval/${e(route.evalId)}/case/${e(route.caseId)}${route.vs ? `/vs/${e(route.vs)}` : ""}`;
}
