import type { PgPool } from "../store/postgres/pg-driver.js";
import { NOW_MS } from "./scale-db.js";

/**
 * How long events wait to be written together. Each write is a round trip and a commit of its
 * own, next to the steps'; writing every event as it came cost a step six of them (and a streamed
 * answer one per delta). A client following a run polls far less often than this.
 */
export const EVENT_FLUSH_MS = 20;

/** A batch this large is written at once, whatever the wait: it bounds a write's size. */
const MAX_BATCH = 512;

/** One row of `run_events`, before it is written. */
export interface EventRow {
  op: number;
  seq: number;
  /**
   * The event as JSON text, already scrubbed. Text, not the event: a row waits up to
   * EVENT_FLUSH_MS, and a kept object graph (a `model_request` holds the whole history) outlives
   * young-generation collections and is copied into the old generation; one string is not walked.
   */
  json: string;
}

/** Where a run's rows wait, and the first write of them that failed. */
interface RunRows {
  rows: EventRow[];
  failure?: unknown;
}

/**
 * Writes the events of every run of one worker to `run_events`: the rows of all runs gathered
 * for up to EVENT_FLUSH_MS go in one statement, one write at a time, so a worker running eight
 * runs writes no more often than one running one. A run that ends asks for its rows at once
 * (`flushed`). The rows may wait because a replay after a crash writes the ones a dead worker
 * never wrote (see EventLog): waiting loses nothing.
 */
export class EventWriter {
  readonly #pool: PgPool;
  readonly #worker: string;
  readonly #flushMs: number;
  readonly #runs = new Map<string, RunRows>();
  #waiting = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(pool: PgPool, worker: string, flushMs = EVENT_FLUSH_MS) {
    this.#pool = pool;
    this.#worker = worker;
    this.#flushMs = flushMs;
  }

  /** Queues `row` of run `runId` for the next write. */
  add(runId: string, row: EventRow): void {
    let run = this.#runs.get(runId);
    if (!run) {
      run = { rows: [] };
      this.#runs.set(runId, run);
    }
    run.rows.push(row);
    if (++this.#waiting >= MAX_BATCH) this.#flush();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#flush(), this.#flushMs);
      this.#timer.unref();
    }
  }

  /**
   * Writes what waits now and resolves once every row of `runId` added so far is written; a
   * failed write of one of them is thrown here. The run is then forgotten.
   */
  async flushed(runId: string): Promise<void> {
    this.#flush();
    await this.#writing;
    const failure = this.#runs.get(runId)?.failure;
    this.#runs.delete(runId);
    if (failure !== undefined) throw failure;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#waiting === 0) return;
    this.#waiting = 0;
    const ids: string[] = [];
    // The rows' JSON array, written out: each event is JSON text already (see EventRow).
    let rows = "";
    const runs: RunRows[] = [];
    for (const [runId, run] of this.#runs) {
      if (run.rows.length === 0) continue;
      ids.push(runId);
      runs.push(run);
      // Postgres arrays count from 1.
      for (const row of run.rows)
        rows += `${rows === "" ? "[" : ","}{"r":${ids.length},"op":${row.op},"seq":${row.seq},"event":${row.json}}`;
      run.rows = [];
    }
    this.#writing = this.#writing.then(async () => {
      try {
        // Each run's id once ($2), its rows by index into it; at commit, a notice names the runs
        // (readers that follow them, such as the HTTP server, read at once instead of polling).
        await this.#pool.query(
          `with written as (
             insert into run_events (run_id, op, seq, worker, at, event)
             select ($2::text[])[e.r], e.op, e.seq, $1, ${NOW_MS}, e.event
             from json_to_recordset($3::json) as e(r integer, op integer, seq integer, event json)
             on conflict (run_id, op, seq) do nothing)
           select pg_notify('${EVENTS_CHANNEL}', $4)`,
          [this.#worker, ids, `${rows}]`, noticePayload(ids)],
        );
        // Written: a run with nothing new since is forgotten until it has rows again.
        for (const [i, run] of runs.entries())
          if (run.rows.length === 0 && run.failure === undefined && this.#runs.get(ids[i] as string) === run)
            this.#runs.delete(ids[i] as string);
      } catch (error) {
        // Kept (until the run's `flushed`) so the run learns of it.
        for (const run of runs) run.failure ??= error;
      }
    });
  }
}

const writers = new WeakMap<PgPool, Map<string, EventWriter>>();

/** The one writer of `worker`'s events on `pool`. */
export function eventWriter(pool: PgPool, worker: string): EventWriter {
  let byWorker = writers.get(pool);
  if (!byWorker) {
    byWorker = new Map();
    writers.set(pool, byWorker);
  }
  let writer = byWorker.get(worker);
  if (!writer) {
    writer = new EventWriter(pool, worker);
    byWorker.set(worker, writer);
  }
  return writer;
}

/** The channel a worker's event writes are announced on (NOTIFY), with the runs' ids as payload. */
export const EVENTS_CHANNEL = "glassloop_scale_events";

/** The runs a notice names, comma-separated; empty (any run) past what a notice may carry. */
function noticePayload(ids: readonly string[]): string {
  const text = ids.join(",");
  return text.length > 7_000 ? "" : text;
}
