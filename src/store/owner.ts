import { hostname } from "node:os";
import type { RunOwner } from "./store.js";

/** Runs this process is driving right now; a run of this pid that is not here was abandoned. */
const activeRuns = new Set<string>();

/** How long a run on another host may go without a checkpoint before it counts as gone. */
export const STALE_AFTER_MS = 15 * 60_000;

/**
 * The host name this process records as the owner of its runs: `GLASSLOOP_OWNER_HOST` when set
 * (containers that share a host name, and tests that play two hosts on one machine), else the
 * machine's. A run of another host is never checked by pid: only its lease (or age) says it is gone.
 */
export function ownerHost(): string {
  const named = process.env.GLASSLOOP_OWNER_HOST;
  return named !== undefined && named !== "" ? named : hostname();
}

/** The owner record of this process, with a lease until `leaseUntil` when given. */
export function currentOwner(leaseUntil?: number): RunOwner {
  return { pid: process.pid, host: ownerHost(), ...(leaseUntil !== undefined && { leaseUntil }) };
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
 * Whether the process that owns a run is still driving it. This process knows its own runs. A
 * lease decides for any other: once it ran out the owner counts as gone (paused, cut off, or
 * dead), and before that a process on this host that no longer exists is gone at once. Without a
 * lease, the pid is checked on this host (signal 0), and on another host only the time since the
 * last checkpoint can tell.
 */
export function ownerAlive(runId: string, owner: RunOwner, updatedAt: number): boolean {
  if (owner.host === ownerHost() && owner.pid === process.pid) return activeRuns.has(runId);
  if (owner.leaseUntil !== undefined) {
    if (owner.leaseUntil <= Date.now()) return false;
    return owner.host !== ownerHost() || pidAlive(owner.pid);
  }
  if (owner.host !== ownerHost()) return Date.now() - updatedAt < STALE_AFTER_MS;
  return pidAlive(owner.pid);
}

/** Whether a process of this host with `pid` exists (signal 0). */
function pidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
