import type Database from "better-sqlite3";
import type { Message } from "../../core/vocabulary/messages.js";
import type { StoredRunStatus } from "../../core/vocabulary/status.js";
import type { RunUsage, StepUsage } from "../../core/vocabulary/usage.js";
import { RunBusyError, RunFencedError, StoreError, UnknownRunError } from "../errors.js";
import { ownerAlive } from "../owner.js";
import { assertClaimable, assertDiscardable, OPEN_STATUSES, ownerOf } from "../run-claim.js";
import { rowProgress, sessionColumnsOf, withoutSteps } from "../run-row.js";
import type {
  ClaimExpectation,
  NewRun,
  RunCheckpoint,
  RunOwner,
  StoredRun,
  StoredRunEnd,
  StoredRunSummary,
} from "../store.js";
import { SqliteRunCalls } from "./sqlite-run-calls.js";
import { listRuns, runMessages, storedRunOf } from "./sqlite-run-reads.js";
import type { RunRow } from "./sqlite-run-row.js";

/** The runs tables: a row per run, its transcript and step usage appended row by row. */
export class SqliteRuns {
  readonly #db: Database.Database;
  readonly #file: string;
  readonly #insertMessage: Database.Statement;
  readonly #upsertStep: Database.Statement;
  readonly #lastSeq: Database.Statement;
  readonly #row: Database.Statement;
  readonly #update: Database.Statement;
  readonly #status: Database.Statement;
  readonly #calls: SqliteRunCalls;
  readonly #progress: Database.Statement;
  readonly #updateStatus: Database.Statement;

  constructor(db: Database.Database, file: string) {
    this.#db = db;
    this.#file = file;
    this.#insertMessage = db.prepare("INSERT INTO run_messages (run_id, seq, message) VALUES (?, ?, ?)");
    this.#upsertStep = db.prepare(
      "INSERT OR REPLACE INTO run_steps (run_id, step_index, usage) VALUES (?, ?, ?)",
    );
    this.#lastSeq = db.prepare("SELECT max(seq) FROM run_messages WHERE run_id = ?").pluck();
    this.#row = db.prepare("SELECT * FROM runs WHERE id = ?");
    this.#status = db.prepare("SELECT status, fence FROM runs WHERE id = ?");
    this.#update = db.prepare(
      "UPDATE runs SET status = ?, usage = ?, progress = ?, updated_at = ? WHERE id = ?",
    );
    this.#updateStatus = db.prepare("UPDATE runs SET status = ?, usage = ?, updated_at = ? WHERE id = ?");
    this.#calls = new SqliteRunCalls(db, file);
    this.#progress = db.prepare("UPDATE runs SET progress = ? WHERE id = ?");
  }

  create(run: NewRun): void {
    const now = Date.now();
    const { steps, ...totals } = run.usage;
    this.#db
      .prepare(
        `INSERT INTO runs (id, agent, model, input, status, owner_pid, owner_host, lease_until, session_id,
           session_offset, session_base, session_version, usage, progress, tools, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        run.runId,
        run.agent,
        run.model,
        run.input,
        run.owner.pid,
        run.owner.host,
        run.owner.leaseUntil ?? null,
        ...sessionColumnsOf(run.session),
        JSON.stringify(totals),
        JSON.stringify(rowProgress(run.progress)),
        run.tools === undefined ? null : JSON.stringify(run.tools),
        now,
        now,
      );
    this.#calls.replace(run.runId, run.progress.pending);
    this.#appendMessages(run.runId, run.messages, 0);
    this.#writeSteps(run.runId, steps);
  }

  checkpoint(runId: string, checkpoint: RunCheckpoint): void {
    this.#checkOpen(runId, checkpoint.fence);
    this.#appendTranscript(runId, checkpoint.messages, checkpoint.persisted, checkpoint.usage);
    const { progress } = checkpoint;
    const usage = JSON.stringify(withoutSteps(checkpoint.usage));
    const mode = checkpoint.progressMode ?? "replace";
    if (mode !== "replace") {
      this.#calls.upsert(runId, progress.pending);
      this.#updateStatus.run(checkpoint.status, usage, Date.now(), runId);
      if (mode === "calls-and-rest") this.#progress.run(JSON.stringify(rowProgress(progress)), runId);
      return;
    }
    this.#calls.replace(runId, progress.pending);
    this.#update.run(checkpoint.status, usage, JSON.stringify(rowProgress(progress)), Date.now(), runId);
  }

  /** Writes the end of a run; returns the row so the caller can save its session. */
  finish(runId: string, end: StoredRunEnd): RunRow {
    this.#checkOpen(runId, end.fence);
    const row = this.#get(runId);
    this.#appendTranscript(row.id, end.messages, end.persisted, end.usage);
    this.#db
      .prepare(
        `UPDATE runs SET status = ?, usage = ?, progress = ?, output = ?, error = ?, updated_at = ? WHERE id = ?`,
      )
      .run(
        end.status,
        JSON.stringify(withoutSteps(end.usage)),
        JSON.stringify({ pending: [] }),
        end.output === undefined ? null : JSON.stringify(end.output),
        end.error === undefined ? null : JSON.stringify(end.error),
        Date.now(),
        runId,
      );
    this.#calls.replace(runId, []);
    return row;
  }

  load(runId: string): StoredRun {
    return storedRunOf(this.#db, this.#file, this.#calls, this.#get(runId));
  }

  /**
   * Takes over a crashed or paused run for `owner`: a compare-and-set that moves it to `running`
   * under `owner` only if it is still as `expect` says (and as read here), so of two claims at
   * once exactly one wins. Refuses a run that ended, is driven by a live owner, or moved on.
   * Called inside the store's write transaction.
   */
  claim(runId: string, owner: RunOwner, expect?: ClaimExpectation): RunRow {
    const row = this.#get(runId);
    assertClaimable(this.#file, runId, row, expect);
    const claimed = this.#db
      .prepare(
        `UPDATE runs SET status = 'running', owner_pid = ?, owner_host = ?, lease_until = ?, fence = fence + 1,
           updated_at = ?
         WHERE id = ? AND status = ? AND owner_pid = ? AND owner_host = ? AND updated_at = ?`,
      )
      .run(
        owner.pid,
        owner.host,
        owner.leaseUntil ?? null,
        // Later than the stamp read, even within one millisecond: a claim that read it is stale now.
        Math.max(Date.now(), row.updated_at + 1),
        runId,
        row.status,
        row.owner_pid,
        row.owner_host,
        row.updated_at,
      );
    // The write transaction already excludes other writers; the guarded update says so in the data too.
    if (claimed.changes !== 1) {
      throw new RunBusyError(this.#file, runId, row.status, "another process claimed it at the same moment.");
    }
    return row;
  }

  /** Marks an interrupted run as discarded; returns its row so the caller can free its session. */
  discard(runId: string): RunRow {
    const row = this.#get(runId);
    assertDiscardable(this.#file, runId, row);
    this.#db
      .prepare("UPDATE runs SET status = 'discarded', updated_at = ? WHERE id = ?")
      .run(Date.now(), runId);
    return row;
  }

  /** Whether the run holding a session still counts as holding it, and how. */
  holderState(runId: string): "gone" | "live" | "interrupted" | "awaiting_approval" {
    const row = this.#row.get(runId) as RunRow | undefined;
    if (!row || !OPEN_STATUSES.includes(row.status)) return "gone";
    if (row.status === "awaiting_approval") return "awaiting_approval";
    return ownerAlive(runId, ownerOf(row), row.updated_at) ? "live" : "interrupted";
  }

  /** Extends the lease of those of `runIds` that `owner` still drives; returns their ids. */
  renewLeases(runIds: readonly string[], owner: RunOwner, leaseUntil: number): string[] {
    const renew = this.#db.prepare(
      `UPDATE runs SET lease_until = ? WHERE id = ? AND status = 'running' AND owner_pid = ? AND owner_host = ?`,
    );
    return runIds.filter((id) => renew.run(leaseUntil, id, owner.pid, owner.host).changes === 1);
  }

  /** Gives up `owner`'s claim: no owner, no lease, the next fencing token (its later writes are refused). */
  release(runId: string, owner: RunOwner): boolean {
    const released = this.#db
      .prepare(
        `UPDATE runs SET owner_pid = 0, owner_host = '', lease_until = 0, fence = fence + 1
         WHERE id = ? AND status = 'running' AND owner_pid = ? AND owner_host = ?`,
      )
      .run(runId, owner.pid, owner.host);
    return released.changes === 1;
  }

  ownerPid(runId: string): number {
    return (this.#row.get(runId) as RunRow | undefined)?.owner_pid ?? 0;
  }

  /** The runs matching `filter`, newest first. */
  list(filter: { status?: StoredRunStatus; sessionId?: string; limit?: number }): StoredRunSummary[] {
    return listRuns(this.#db, filter);
  }

  /** The transcript of a run, in order. */
  messages(runId: string): Message[] {
    return runMessages(this.#db, this.#file, runId);
  }

  #get(runId: string): RunRow {
    const row = this.#row.get(runId) as RunRow | undefined;
    if (!row) throw new UnknownRunError(this.#file, runId);
    return row;
  }

  /** Refuses a write to a run that ended, or (with `fence`) that another process claimed since. */
  #checkOpen(runId: string, fence: number | undefined): void {
    const row = this.#status.get(runId) as { status: StoredRunStatus; fence: number } | undefined;
    if (row === undefined) throw new UnknownRunError(this.#file, runId);
    const { status } = row;
    if (fence !== undefined && row.fence !== fence) throw new RunFencedError(this.#file, runId);
    if (!OPEN_STATUSES.includes(status)) {
      throw new StoreError(
        "run_ended",
        this.#file,
        `Run ${runId} in ${this.#file} already ended (${status}); it cannot be written again`,
      );
    }
  }

  #appendTranscript(runId: string, messages: readonly Message[], persisted: number, usage: RunUsage): void {
    const stored = ((this.#lastSeq.get(runId) as number | null) ?? -1) + 1;
    if (stored !== persisted) {
      throw new StoreError(
        "checkpoint_mismatch",
        this.#file,
        `Run ${runId} in ${this.#file} has ${stored} stored messages but the checkpoint assumed ${persisted}; ` +
          "another process may be driving the same run",
      );
    }
    this.#appendMessages(runId, messages, persisted);
    this.#writeSteps(runId, usage.steps);
  }

  #appendMessages(runId: string, messages: readonly Message[], from: number): void {
    for (let i = from; i < messages.length; i++)
      this.#insertMessage.run(runId, i, JSON.stringify(messages[i]));
  }

  /** Steps are keyed by their number, so a checkpoint may carry only the steps that changed. */
  #writeSteps(runId: string, steps: readonly StepUsage[]): void {
    for (const step of steps) this.#upsertStep.run(runId, step.step, JSON.stringify(step));
  }
}
