import type { Message } from "../../core/vocabulary/messages.js";
import type { StoredRunStatus } from "../../core/vocabulary/status.js";
import type { RunUsage } from "../../core/vocabulary/usage.js";
import { RunFencedError, StoreError, UnknownRunError } from "../errors.js";
import { ownerAlive } from "../owner.js";
import { assertClaimable, assertDiscardable, OPEN_STATUSES, ownerOf } from "../run-claim.js";
import { rowProgress, sessionColumnsOf, withoutSteps } from "../run-row.js";
import type {
  ClaimExpectation,
  NewRun,
  PendingCall,
  RunCheckpoint,
  RunOwner,
  StoredRun,
  StoredRunEnd,
  StoredRunSummary,
} from "../store.js";
import type { PgClient } from "./pg-driver.js";
import { listRuns, storedRunOf } from "./pg-run-reads.js";
import type { PgRunRow } from "./pg-run-row.js";
import { appendMessages, uniqueCalls, uniqueSteps, writeSteps } from "./pg-run-writes.js";

// Every write stamps `updated_at` later than the stamp it replaces (two writes in one millisecond
// included), so a claim's compare-and-set on it never mistakes a newer write for the state it read.
const STAMP = "greatest($2::bigint, updated_at + 1)";

/** The runs tables on Postgres; every method runs inside the caller's transaction on `client`. */
export class PgRuns {
  readonly #location: string;

  constructor(location: string) {
    this.#location = location;
  }

  async create(c: PgClient, run: NewRun): Promise<void> {
    const now = Date.now();
    const { steps, ...totals } = run.usage;
    await c.query(
      `INSERT INTO runs (id, agent, model, input, status, owner_pid, owner_host, session_id, session_offset,
         session_base, session_version, usage, progress, tools, message_count, created_at, updated_at, lease_until)
       VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16)`,
      [
        run.runId,
        run.agent,
        run.model,
        JSON.stringify(run.input),
        run.owner.pid,
        run.owner.host,
        ...sessionColumnsOf(run.session),
        JSON.stringify(totals),
        JSON.stringify(rowProgress(run.progress)),
        run.tools === undefined ? null : JSON.stringify(run.tools),
        run.messages.length,
        now,
        run.owner.leaseUntil ?? null,
      ],
    );
    await this.#replaceCalls(c, run.runId, run.progress.pending);
    await appendMessages(c, run.runId, run.messages, 0);
    await writeSteps(c, run.runId, steps);
  }

  /**
   * A checkpoint in one statement (one round trip, atomic on its own): the run's row is locked,
   * and the transcript, steps and calls are written only if the run is open and its stored
   * transcript is the one the checkpoint continues; otherwise nothing is written and the
   * returned row says why. This runs four times per step, so its round trips are the cost.
   */
  async checkpoint(c: PgClient, runId: string, checkpoint: RunCheckpoint): Promise<void> {
    const { progress, messages, persisted, usage } = checkpoint;
    const mode = checkpoint.progressMode ?? "replace";
    const calls = uniqueCalls(progress.pending);
    const steps = uniqueSteps(usage.steps);
    const result = await c.query<{
      status: StoredRunStatus | null;
      message_count: number | null;
      fence: number | null;
      written: number;
    }>({
      // Named, so each connection parses and plans it once: this statement is most of a step's cost.
      name: "glassloop_checkpoint",
      text: `WITH r AS (SELECT id, status, message_count, fence FROM runs WHERE id = $1 FOR UPDATE),
       ok AS (SELECT id FROM r WHERE status IN ('running', 'awaiting_approval') AND message_count = $3
              AND ($15::int IS NULL OR fence = $15::int)),
       m AS (INSERT INTO run_messages (run_id, seq, message)
             SELECT ok.id, t.s, t.m FROM ok, unnest($4::int[], $5::json[]) AS t(s, m)),
       st AS (INSERT INTO run_steps (run_id, step_index, usage)
              SELECT ok.id, t.s, t.u FROM ok, unnest($6::int[], $7::json[]) AS t(s, u)
              ON CONFLICT (run_id, step_index) DO UPDATE SET usage = excluded.usage),
       ca AS (INSERT INTO run_calls (run_id, call_id, seq, pending)
              SELECT ok.id, t.id, CASE WHEN $10 THEN t.n - 1
                ELSE (SELECT coalesce(max(seq), -1) FROM run_calls WHERE run_id = $1) + t.n END, t.p
              FROM ok, unnest($8::text[], $9::json[]) WITH ORDINALITY AS t(id, p, n)
              ON CONFLICT (run_id, call_id) DO UPDATE SET pending = excluded.pending,
                seq = CASE WHEN $10 THEN excluded.seq ELSE run_calls.seq END),
       -- A full progress replaces the list: the calls it does not name go (disjoint from the upserts).
       cd AS (DELETE FROM run_calls WHERE $10 AND run_id IN (SELECT id FROM ok) AND NOT (call_id = ANY($8::text[]))),
       u AS (UPDATE runs SET status = $11, usage = $12, progress = coalesce($13::json, progress),
               message_count = $14, updated_at = ${STAMP}
             WHERE id IN (SELECT id FROM ok) RETURNING id)
       SELECT (SELECT status FROM r) AS status, (SELECT message_count FROM r) AS message_count,
              (SELECT fence FROM r) AS fence, (SELECT count(*) FROM u)::int AS written`,
      values: [
        runId,
        Date.now(),
        persisted,
        messages.slice(persisted).map((_, i) => persisted + i),
        messages.slice(persisted).map((m) => JSON.stringify(m)),
        steps.map((x) => x.step),
        steps.map((x) => JSON.stringify(x)),
        calls.map((p) => p.call.id),
        calls.map((p) => JSON.stringify(p)),
        mode === "replace",
        checkpoint.status,
        JSON.stringify(withoutSteps(usage)),
        mode === "calls" ? null : JSON.stringify(rowProgress(progress)),
        messages.length,
        checkpoint.fence ?? null,
      ],
    });
    const row = result.rows[0];
    if (row?.written === 1) return;
    if (!row || row.status === null) throw new UnknownRunError(this.#location, runId);
    if (checkpoint.fence !== undefined && row.fence !== checkpoint.fence)
      throw new RunFencedError(this.#location, runId);
    this.#checkWritable(runId, row.status, row.message_count ?? 0, persisted);
  }

  /** Writes the end of a run; returns the row (locked) so the caller can save its session. */
  async finish(c: PgClient, runId: string, end: StoredRunEnd): Promise<PgRunRow> {
    const row = await this.#get(c, runId, true);
    if (end.fence !== undefined && row.fence !== end.fence) throw new RunFencedError(this.#location, runId);
    this.#checkWritable(runId, row.status, row.message_count, end.persisted);
    await this.#appendTranscript(c, runId, end.messages, end.persisted, end.usage);
    await c.query(
      `UPDATE runs SET status = $3, usage = $4, progress = $5, output = $6, error = $7, message_count = $8,
         updated_at = ${STAMP} WHERE id = $1`,
      [
        runId,
        Date.now(),
        end.status,
        JSON.stringify(withoutSteps(end.usage)),
        JSON.stringify({ pending: [] }),
        end.output === undefined ? null : JSON.stringify(end.output),
        end.error === undefined ? null : JSON.stringify(end.error),
        end.messages.length,
      ],
    );
    await c.query("DELETE FROM run_calls WHERE run_id = $1", [runId]);
    return row;
  }

  async load(c: PgClient, runId: string): Promise<StoredRun> {
    return storedRunOf(c, await this.#get(c, runId, false));
  }

  /**
   * Takes over a crashed or paused run for `owner`, under the run row's lock (SELECT … FOR UPDATE):
   * a second claim waits for the first to commit, then reads the run as the winner left it, and
   * loses. Refuses a run that ended, is driven by a live owner, or moved on since `expect`.
   */
  async claim(c: PgClient, runId: string, owner: RunOwner, expect?: ClaimExpectation): Promise<PgRunRow> {
    const row = await this.#get(c, runId, true);
    assertClaimable(this.#location, runId, row, expect);
    await c.query(
      `UPDATE runs SET status = 'running', owner_pid = $3, owner_host = $4, lease_until = $5, fence = fence + 1,
         updated_at = ${STAMP} WHERE id = $1`,
      [runId, Date.now(), owner.pid, owner.host, owner.leaseUntil ?? null],
    );
    return row;
  }

  /** Extends the lease of those of `runIds` that `owner` still drives; returns their ids. */
  async renewLeases(
    c: PgClient,
    runIds: readonly string[],
    owner: RunOwner,
    leaseUntil: number,
  ): Promise<string[]> {
    const { rows } = await c.query<{ id: string }>(
      `UPDATE runs SET lease_until = $2 WHERE id = ANY($1::text[]) AND status = 'running'
         AND owner_pid = $3 AND owner_host = $4 RETURNING id`,
      [[...runIds], leaseUntil, owner.pid, owner.host],
    );
    return rows.map((r) => r.id);
  }

  /** Gives up `owner`'s claim: no owner, no lease, the next fencing token (its later writes are refused). */
  async release(c: PgClient, runId: string, owner: RunOwner): Promise<boolean> {
    const { rowCount } = await c.query(
      `UPDATE runs SET owner_pid = 0, owner_host = '', lease_until = 0, fence = fence + 1
         WHERE id = $1 AND status = 'running' AND owner_pid = $2 AND owner_host = $3`,
      [runId, owner.pid, owner.host],
    );
    return rowCount === 1;
  }

  /** Marks an interrupted run as discarded; returns its row so the caller can free its session. */
  async discard(c: PgClient, runId: string): Promise<PgRunRow> {
    const row = await this.#get(c, runId, true);
    assertDiscardable(this.#location, runId, row);
    await c.query(`UPDATE runs SET status = 'discarded', updated_at = ${STAMP} WHERE id = $1`, [
      runId,
      Date.now(),
    ]);
    return row;
  }

  /** Whether the run holding a session still counts as holding it, and how (with its pid). */
  async holder(
    c: PgClient,
    runId: string,
  ): Promise<{ state: "gone" | "live" | "interrupted" | "awaiting_approval"; pid: number }> {
    const found = await c.query<PgRunRow>(
      "SELECT id, status, owner_pid, owner_host, lease_until, updated_at FROM runs WHERE id = $1",
      [runId],
    );
    const row = found.rows[0];
    if (!row || !OPEN_STATUSES.includes(row.status)) return { state: "gone", pid: 0 };
    if (row.status === "awaiting_approval") return { state: "awaiting_approval", pid: row.owner_pid };
    const alive = ownerAlive(runId, ownerOf(row), row.updated_at);
    return { state: alive ? "live" : "interrupted", pid: row.owner_pid };
  }

  async list(
    c: PgClient,
    filter: { status?: StoredRunStatus; sessionId?: string; limit?: number },
  ): Promise<StoredRunSummary[]> {
    return listRuns(c, filter);
  }

  async #get(c: PgClient, runId: string, lock: boolean): Promise<PgRunRow> {
    const found = await c.query<PgRunRow>(`SELECT * FROM runs WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [
      runId,
    ]);
    const row = found.rows[0];
    if (!row) throw new UnknownRunError(this.#location, runId);
    return row;
  }

  #checkWritable(runId: string, status: StoredRunStatus, stored: number, persisted: number): void {
    if (!OPEN_STATUSES.includes(status)) {
      throw new StoreError(
        "run_ended",
        this.#location,
        `Run ${runId} in ${this.#location} already ended (${status}); it cannot be written again`,
      );
    }
    if (stored !== persisted) {
      throw new StoreError(
        "checkpoint_mismatch",
        this.#location,
        `Run ${runId} in ${this.#location} has ${stored} stored messages but the checkpoint assumed ${persisted}; ` +
          "another process may be driving the same run",
      );
    }
  }

  async #appendTranscript(
    c: PgClient,
    runId: string,
    messages: readonly Message[],
    persisted: number,
    usage: RunUsage,
  ): Promise<void> {
    await appendMessages(c, runId, messages, persisted);
    await writeSteps(c, runId, usage.steps);
  }

  /** Writes these calls, each replacing the stored call of its id (a new id goes last). */
  async #upsertCalls(c: PgClient, runId: string, calls: readonly PendingCall[]): Promise<void> {
    if (calls.length === 0) return;
    const unique = uniqueCalls(calls);
    await c.query(
      `INSERT INTO run_calls (run_id, call_id, seq, pending)
       SELECT $1, t.id, (SELECT coalesce(max(seq), -1) FROM run_calls WHERE run_id = $1) + t.n, t.p
       FROM unnest($2::text[], $3::json[]) WITH ORDINALITY AS t(id, p, n)
       ON CONFLICT (run_id, call_id) DO UPDATE SET pending = excluded.pending`,
      [runId, unique.map((p) => p.call.id), unique.map((p) => JSON.stringify(p))],
    );
  }

  async #replaceCalls(c: PgClient, runId: string, calls: readonly PendingCall[]): Promise<void> {
    await c.query("DELETE FROM run_calls WHERE run_id = $1", [runId]);
    await this.#upsertCalls(c, runId, calls);
  }
}
