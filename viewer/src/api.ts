import type { RunSummary } from "../../src/trace/run-summary.js";
import type { RunView } from "../../src/trace/run-view.js";

/** A run as the server sends it: the view plus the file it came from. */
export type ServedRun = RunView & { file: string };

/** The runs the server knows, and files it could not read. */
export interface RunList {
  runs: RunSummary[];
  skipped: string[];
}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: "application/json" } });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    throw new Error(body.error ?? `${res.status} ${res.statusText}`);
  }
  return (await res.json()) as T;
}

/** Every run in the viewer's traces. */
export const fetchRuns = () => get<RunList>("api/runs");

/** One run, reconstructed from its trace. */
export const fetchRun = (runId: string) => get<ServedRun>(`api/runs/${encodeURIComponent(runId)}`);
