import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { PgPool } from "../store/postgres/pg-driver.js";
import { WorkerIdTakenError } from "./errors.js";
import type { Fence } from "./run-steps.js";
import { NOW_MS } from "./scale-db.js";

/** How long leases last and how often they are renewed and checked. */
export interface LeaseTiming {
  /** A worker that has not renewed for this long is dead: its runs go to another worker. */
  ttlMs: number;
  /** How often a worker renews its lease (a third of `ttlMs` unless given). */
  renewMs: number;
}

/**
 * One worker's claim on its executor id, a row in `workers` renewed on a timer. The claim is a
 * compare-and-set on the database's clock: it succeeds only where no row exists or the row's
 * lease has run out, so two live workers never hold one id. A worker that cannot renew in time
 * stops taking steps (see `Fence`) before anyone may adopt its runs, which wait for the lease to
 * run out first: that order is what keeps a stalled worker from running a step its adopter runs too.
 */
export class WorkerLease implements Fence {
  readonly executorId: string;
  readonly instance = randomUUID();
  readonly #pool: PgPool;
  readonly #timing: LeaseTiming;
  readonly #onFenced: (reason: string) => void;
  /** Local monotonic time until which the lease is surely held: renewal start + ttl. */
  #heldUntil = 0;
  #timer: NodeJS.Timeout | undefined;
  #fenced = false;

  private constructor(
    pool: PgPool,
    executorId: string,
    timing: LeaseTiming,
    onFenced: (reason: string) => void,
  ) {
    this.#pool = pool;
    this.executorId = executorId;
    this.#timing = timing;
    this.#onFenced = onFenced;
  }

  /** Claims `executorId`, or fails with WorkerIdTakenError while a live worker holds it. */
  static async claim(
    pool: PgPool,
    executorId: string,
    timing: LeaseTiming,
    onFenced: (reason: string) => void,
  ): Promise<WorkerLease> {
    const lease = new WorkerLease(pool, executorId, timing, onFenced);
    const asked = performance.now();
    const claimed = await pool.query<{ instance: string }>(
      `insert into workers (executor_id, instance, pid, host, started_at, lease_until)
       values ($1, $2, $3, $4, ${NOW_MS}, ${NOW_MS} + $5)
       on conflict (executor_id) do update
         set instance = excluded.instance, pid = excluded.pid, host = excluded.host,
             started_at = excluded.started_at, lease_until = excluded.lease_until,
             adopted_by = null, adopted_at = null
         where workers.lease_until < ${NOW_MS}
       returning instance`,
      [executorId, lease.instance, process.pid, hostname(), timing.ttlMs],
    );
    if (claimed.rows[0]?.instance !== lease.instance) {
      const holder = await pool.query<{ pid: number; host: string; left_ms: number }>(
        `select pid, host, lease_until - ${NOW_MS} as left_ms from workers where executor_id = $1`,
        [executorId],
      );
      const row = holder.rows[0];
      throw new WorkerIdTakenError(executorId, {
        pid: row?.pid ?? 0,
        host: row?.host ?? "?",
        leaseLeftMs: Number(row?.left_ms ?? 0),
      });
    }
    lease.#heldUntil = asked + timing.ttlMs;
    lease.#timer = setInterval(() => void lease.renew(), timing.renewMs);
    lease.#timer.unref();
    return lease;
  }

  /** True while the lease is surely held: renewed less than `ttlMs` ago (by this process's clock). */
  live(): boolean {
    return !this.#fenced && performance.now() < this.#heldUntil;
  }

  /** Stops the worker once: its lease is gone, so its runs are, or soon will be, another's. */
  fenced(reason: string): void {
    if (this.#fenced) return;
    this.#fenced = true;
    this.stop();
    this.#onFenced(reason);
  }

  /**
   * Extends the lease. It succeeds while the row is ours and nobody adopted our runs, even if the
   * lease ran out meanwhile (a stalled process): adoption and renewal lock the same row, so one of
   * them wins and the other sees it. A lost row fences this worker.
   */
  async renew(): Promise<void> {
    await this.confirm();
  }

  /** Renews now; true if the lease is still held (see `renew`). */
  async confirm(): Promise<boolean> {
    if (this.#fenced) return false;
    this.#renewing ??= this.#renewNow().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  #renewing: Promise<boolean> | undefined;

  async #renewNow(): Promise<boolean> {
    const asked = performance.now();
    try {
      const renewed = await this.#pool.query(
        `update workers set lease_until = ${NOW_MS} + $3
         where executor_id = $1 and instance = $2 and adopted_by is null`,
        [this.executorId, this.instance, this.#timing.ttlMs],
      );
      if (renewed.rowCount === 1) {
        this.#heldUntil = asked + this.#timing.ttlMs;
        return true;
      }
      this.fenced(
        `worker ${this.executorId}: its runs were adopted by another worker, or its id was taken over`,
      );
      return false;
    } catch {
      // The database is unreachable: `live` turns false when the lease runs out, and the next
      // step asks again; no step starts until the database answers.
      return this.live();
    }
  }

  /** Stops renewing (shutdown); the row stays until its lease runs out or the id is claimed again. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Gives the id up at a clean shutdown, so its runs are adopted at once and the id is free. */
  async release(): Promise<void> {
    this.stop();
    await this.#pool.query(
      `update workers set lease_until = ${NOW_MS} - 1 where executor_id = $1 and instance = $2`,
      [this.executorId, this.instance],
    );
  }
}

/**
 * The ids of workers whose lease ran out `graceMs` ago or more, marked adopted by `adopter`, one
 * adopter each (rows locked by another adopter are skipped). The caller recovers their pending
 * runs; DBOS's queue hands each recovered run to exactly one live worker.
 */
export async function claimDeadWorkers(
  pool: PgPool,
  adopter: string,
  graceMs: number,
  readoptMs: number,
): Promise<string[]> {
  const adopted = await pool.query<{ executor_id: string }>(
    `update workers set adopted_by = $1, adopted_at = ${NOW_MS}
     where executor_id in (
       select executor_id from workers
       where lease_until < ${NOW_MS} - $2 and executor_id <> $1
         and (adopted_by is null or adopted_at < ${NOW_MS} - $3)
       for update skip locked)
     returning executor_id`,
    // Adopted again after a while: an adopter that died between marking and recovering left
    // runs behind, and recovering twice is harmless (only pending runs are re-queued, once).
    [adopter, graceMs, readoptMs],
  );
  return adopted.rows.map((r) => r.executor_id);
}
