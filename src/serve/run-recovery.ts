import type { Agent } from "../agent/agent.js";
import { currentOwner, ownerAlive, ownerHost } from "../store/owner.js";
import type { Store } from "../store/store.js";
import type { AgentTable } from "./agents.js";
import { openParts } from "./run-closing.js";
import type { RunDriver } from "./run-driver.js";
import type { RunSlots } from "./run-slots.js";
import type { RunRecord, ServeLog } from "./serve-log.js";

/** How often a process on a log without notices looks for runs handed over to it. */
const RELEASED_LOOKOUT_MS = 500;

/** What recovery needs from the handler. */
export interface RunRecoveryOptions {
  log: ServeLog;
  store: Store;
  agents: AgentTable;
  driver: RunDriver;
  slots: RunSlots;
  /** How long a claim on a run holds without renewal (ms); renewed four times as often. */
  leaseMs: number;
}

/**
 * Keeps this process's claims on the runs it drives, and takes over the runs of processes that
 * are gone. Each tick renews this process's leases (and stops the runs a client asked another
 * process to cancel), then looks for running runs whose driver stopped renewing: its lease ran
 * out, or it was a process on this host that no longer exists. Each such run is claimed in the
 * log (one process wins) and resumed from its last checkpoint, or, when its agent cannot be
 * made, ended as `interrupted` with the reason.
 */
export class RunRecovery {
  readonly #o: RunRecoveryOptions;
  #timer: NodeJS.Timeout | undefined;
  /** Without notices (SQLite): looks for runs other processes handed over, between renewals. */
  #lookout: NodeJS.Timeout | undefined;
  #looking: Promise<void> | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;
  #takeOver = true;
  /** Until when the leases this process last renewed hold (its runs are fenced off after that). */
  #heldUntil = Number.POSITIVE_INFINITY;

  constructor(options: RunRecoveryOptions) {
    this.#o = options;
  }

  /** Takes over what dead processes left running, once. */
  async recover(): Promise<void> {
    const { log, driver } = this.#o;
    const now = Date.now();
    for (const run of await log.listRunning()) {
      if (this.#stopped) return;
      if (driver.has(run.runId) || !driverGone(run, driver.id, now)) continue;
      if (await this.#heldInStore(run.runId)) continue;
      if (!(await log.takeOverRun(run.runId, driver.id, driver.leaseUntil(), run.driver))) continue;
      await this.#resume(run);
    }
  }

  /** Renews leases (and, with `takeOver`, recovers) every `leaseMs / 4` from now on, until `stop`. */
  start(takeOver: boolean): void {
    if (this.#timer || this.#stopped) return;
    this.#takeOver = takeOver;
    this.#heldUntil = Date.now() + this.#o.leaseMs;
    const every = Math.max(10, Math.floor(this.#o.leaseMs / 4));
    this.#timer = setInterval(() => this.poke(), every);
    this.#timer.unref();
    // A log that announces nothing: a run another process handed over is taken within half a
    // second rather than at the next renewal (a read of the running runs, no write).
    if (takeOver && !this.#o.log.subscribe && every > RELEASED_LOOKOUT_MS) {
      this.#lookout = setInterval(() => {
        if (!this.#takeOver || this.#stopped || this.#ticking) return;
        this.#looking ??= this.recover()
          .catch((error: unknown) => console.error("glassloop serve: taking over runs failed:", error))
          .finally(() => {
            this.#looking = undefined;
          });
      }, RELEASED_LOOKOUT_MS);
      this.#lookout.unref();
    }
  }

  /** Runs a tick now (unless one is running): another process handed a run over. */
  poke(): void {
    if (this.#stopped || !this.#timer) return;
    this.#ticking ??= this.#tick().finally(() => {
      this.#ticking = undefined;
    });
  }

  /** Takes over no more runs, but keeps renewing the leases of those driven here (they are being handed over). */
  drain(): void {
    this.#takeOver = false;
  }

  /** Stops the ticks (the leases then run out: another process takes the runs left running). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    if (this.#lookout) clearInterval(this.#lookout);
    this.#timer = undefined;
    this.#lookout = undefined;
    await this.#looking;
    await this.#ticking;
  }

  /**
   * Renews this process's leases, in the store first and then in the log with the same end, so
   * the store's lease never outlasts the log's: a run the log lets another process take over,
   * the store lets it claim. A run the log names another driver for was taken over: it stops
   * here at once. When the log cannot be reached until the leases are about to run out, every
   * run driven here stops (another process may take them over once they have).
   */
  async #tick(): Promise<void> {
    const { log, store, driver, leaseMs } = this.#o;
    const until = driver.leaseUntil();
    const driven = driver.runIds();
    try {
      await store.renewLeases?.(driven, currentOwner(), until);
    } catch (error) {
      console.error("glassloop serve: renewing leases in the store failed:", error);
    }
    try {
      const { cancelled, lost } = await log.renewLeases(driver.id, until, driven);
      this.#heldUntil = until;
      for (const runId of lost) driver.lost(runId);
      for (const runId of cancelled) driver.abort(runId, "cancelled by the client");
    } catch (error) {
      console.error("glassloop serve: renewing leases failed:", error);
      if (Date.now() >= this.#heldUntil - leaseMs / 4) driver.loseAll();
      return;
    }
    try {
      if (this.#takeOver) await this.recover();
    } catch (error) {
      console.error("glassloop serve: taking over runs failed:", error);
    }
  }

  /**
   * Whether the store still counts the run's owner as alive, so a resume's claim would be refused:
   * its lease in the store has not run out yet (renewed just before the log's, it runs out first,
   * so this is rare), or the store keeps no leases and a process on another host is gone for it
   * only some time after its last checkpoint. The run is left for a later tick rather than failed.
   */
  async #heldInStore(runId: string): Promise<boolean> {
    const stored = await this.#o.store.loadRun(runId).catch(() => undefined);
    return stored?.status === "running" && ownerAlive(runId, stored.owner, stored.updatedAt);
  }

  async #resume(run: RunRecord): Promise<void> {
    const { log, agents, driver, slots } = this.#o;
    const open = await openParts(log, run.runId);
    let agent: Agent<unknown, unknown>;
    try {
      agent = await agents.make(run.agent);
    } catch (error) {
      await driver.interrupt(run, `its agent could not be made: ${(error as Error).message}`);
      return;
    }
    slots.add(run.principal);
    driver.drive(
      run,
      run.lastSeq,
      { kind: "resumed", reason: "restart" },
      (onEvent, signal) => agent.resume(run.runId, { stream: true, onEvent, signal }),
      agent,
      open,
    );
  }
}

/**
 * Whether the process named as a running run's driver is gone: none is named (a run written
 * before drivers were, or one handed over), its lease ran out, or it was a process on this host
 * that has exited.
 */
export function driverGone(run: RunRecord, me: string, now: number): boolean {
  if (run.driver === undefined) return true;
  // A lease that ran out frees the run whoever held it, this process included (a drive of it that
  // stopped here without handing it over: the caller checks first that none runs here now).
  if (run.leaseUntil === undefined || run.leaseUntil < now) return true;
  if (run.driver === me) return false;
  const [host, text] = run.driver.split("/");
  const pid = Number(text);
  if (host !== ownerHost() || !Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== "EPERM";
  }
}
