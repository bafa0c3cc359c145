import type { AgentEvent } from "../core/vocabulary/events.js";

/** Longest worker name kept: the name comes from the trace, which anyone could have written. */
const WORKER_NAME_MAX = 200;

/**
 * The scale-out worker that wrote an event: distributed runs' events carry a `worker` key (see
 * `glassloop enqueue --trace`); other traces have none. Read defensively: it is trace content.
 */
export function workerOf(event: AgentEvent): string | undefined {
  const worker = (event as { worker?: unknown }).worker;
  if (typeof worker !== "string" || worker === "") return undefined;
  return worker.length > WORKER_NAME_MAX ? `${worker.slice(0, WORKER_NAME_MAX - 1)}…` : worker;
}
