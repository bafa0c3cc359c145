import type { EvalListing } from "../../../src/evals/result-file.js";
import type { EvalResult } from "../../../src/evals/types.js";

/** An eval as the server sends it: the result plus the file it came from. */
export type ServedEval = EvalResult & { file: string };

async function get<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: "application/json" } });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    throw new Error(body.error ?? `${res.status} ${res.statusText}`);
  }
  return (await res.json()) as T;
}

/** Every eval result the viewer serves, newest first. */
export const fetchEvals = () => get<{ evals: EvalListing[] }>("api/evals");

/** One eval result. */
export const fetchEval = (evalId: string) => get<ServedEval>(`api/evals/${encodeURIComponent(evalId)}`);
