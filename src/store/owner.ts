import { hostname } from "node:os";
import type { RunOwner } from "./store.js";

/** Runs this process is driving right now; a run of this pid that is not here was abandoned. */
const activeRuns = new Set<string>();

/** How long a run on another host may go without a checkpoint before it counts as gone. */
export const STALE_AFTER_MS = 15 * 60_000;

/** The owner record of this process. */
export function currentOwner(): RunOwner {
  return { pid: process.pid, host: hostname() };
}

/** Runs this process is taking over (between `claimRun` and the run starting). */
const claiming = new Set<string>();

/**
 * Reserves a run for a resume in this process; false if this process already drives or resumes
 * it (two resumes of one run in one process would both pass the store's pid check).
 */
export function reserveClaim(runId: string): (() => void) | undefined {
  if (activeRuns.has(runId) || claiming.has(runId)) return undefined;
  claiming.add(runId);
  return () => claiming.delete(runId);
}

/** Marks a run as driven by this process until the returned function is called. */
export function markActive(runId: string): () => void {
  activeRuns.add(runId);
  return () => activeRuns.delete(runId);
}

/**
 * Whether the process that owns a run is still driving it. On this host the pid is checked
 * (signal 0); on another host only the time since the last checkpoint can tell.
 */
export function ownerAlive(runId: string, owner: RunOwner, updatedAt: number): boolean {
  if (owner.host !== hostname()) return Date.now() - updatedAt < STALE_AFTER_MS;
  if (owner.pid === process.pid) return activeRuns.has(runId);
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
