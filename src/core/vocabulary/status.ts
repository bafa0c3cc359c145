/**
 * One run status: how a run ended. The store and the trace view each add the states only they
 * can see, written here as extensions of it so the three never drift apart.
 */

/** How a run ended: the `run_end` event's status, and a stored run's once it stopped. */
export type RunStatus = "ok" | "failed" | "budget_exceeded" | "aborted" | "awaiting_approval";

/** Where a stored run stands: how it ended, or still `running` (or crashed), or `discarded` by a person. */
export type StoredRunStatus = RunStatus | "running" | "discarded";

/** A traced run's status: how it ended, or `incomplete` when the trace stops before `run_end` (a crash). */
export type TraceRunStatus = RunStatus | "incomplete";
