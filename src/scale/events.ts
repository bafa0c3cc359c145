import { DeltaScrubber } from "../core/delta-scrub.js";
import type { Redactor } from "../core/redact.js";
import { redactingSink, type Sink } from "../core/sink.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { PgPool } from "../store/postgres/pg-driver.js";
import { NOW_MS } from "./scale-db.js";

/** A place in a run's events: the DBOS operation an event follows and its place after it (see `ScaleEvent`). */
export interface EventPosition {
  op: number;
  seq: number;
}

/** One event of a distributed run, as a client reads it: which worker emitted it, and where. */
export interface ScaleEvent {
  runId: string;
  /** The DBOS operation the event follows (0: before the first) and its place after it. */
  op: number;
  seq: number;
  /** The executor id of the worker that ran this part of the run. */
  worker: string;
  /** When the event was written, in ms since the epoch (the database's clock). */
  at: number;
  event: AgentEvent;
}

/**
 * How long a run's events wait to be written together. Each write is a round trip and a commit
 * of its own, next to the step's; writing every event as it comes cost a step six of them (and a
 * streamed answer one per delta). A client following a run polls far less often than this.
 */
export const EVENT_FLUSH_MS = 20;

/** A batch this large is written at once, whatever the wait: it bounds a write's size. */
const MAX_BATCH = 256;

/**
 * Writes one run's events to `run_events`, keyed by (operation count, place after it). A replay
 * after a crash emits the same events under the same keys, so the rows the dead worker wrote
 * stay (with its name) and the ones it never wrote are filled in: each event exactly once, in
 * the order of the run, whichever workers took part. That is also why writes may wait: events a
 * crash kept from being written are written by the replay. Writes never block the loop: events
 * are gathered for up to EVENT_FLUSH_MS and written in one statement, one write at a time.
 */
export class EventLog {
  readonly #pool: PgPool;
  readonly #runId: string;
  readonly #worker: string;
  /** Each event is scrubbed on its way to `run_events`, where any client with the URL reads it. */
  readonly #events: Sink<AgentEvent, AgentEvent>;
  /**
   * Text, reasoning and tool-argument deltas are scrubbed as streams (a secret split across two is
   * caught), each still one row: a replay after a crash numbers them as the first execution did.
   */
  readonly #deltas: DeltaScrubber;
  readonly #flushMs: number;
  #op = -1;
  #seq = 0;
  #buffer: { op: number; seq: number; event: AgentEvent }[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failure: unknown;

  constructor(pool: PgPool, runId: string, worker: string, scrubber: Redactor, flushMs = EVENT_FLUSH_MS) {
    this.#pool = pool;
    this.#runId = runId;
    this.#worker = worker;
    this.#events = redactingSink("run events", scrubber, (clean: AgentEvent) => clean);
    this.#deltas = new DeltaScrubber(scrubber);
    this.#flushMs = flushMs;
  }

  /** Records `event`, emitted after DBOS operation number `op`. */
  record(op: number, event: AgentEvent): void {
    if (op !== this.#op) {
      this.#op = op;
      this.#seq = 0;
    }
    this.#deltas.push(event, this.#keep);
  }

  readonly #keep = (event: AgentEvent): void => {
    this.#buffer.push({ op: this.#op, seq: this.#seq++, event: this.#events.write(event) });
    if (this.#buffer.length >= MAX_BATCH) this.#flush();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.#flush(), this.#flushMs);
      this.#timer.unref();
    }
  };

  /** Waits until every recorded event is written (what a stream still held too); a failed write is thrown here. */
  async flushed(): Promise<void> {
    this.#deltas.end(this.#keep);
    this.#flush();
    await this.#writing;
    if (this.#failure !== undefined) throw this.#failure;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#buffer.length === 0) return;
    const batch = this.#buffer;
    this.#buffer = [];
    this.#writing = this.#writing.then(async () => {
      try {
        await this.#pool.query(
          `insert into run_events (run_id, op, seq, worker, at, event)
           select $1, e.op, e.seq, $2, ${NOW_MS}, e.event
           from json_to_recordset($3::json) as e(op integer, seq integer, event json)
           on conflict (run_id, op, seq) do nothing`,
          [this.#runId, this.#worker, JSON.stringify(batch)],
        );
      } catch (error) {
        this.#failure ??= error;
      }
    });
  }
}

/** Events of `runId` after position (`op`, `seq`), in run order, at most `limit`. */
export async function readEvents(
  pool: PgPool,
  runId: string,
  after: EventPosition | undefined,
  limit = 500,
): Promise<ScaleEvent[]> {
  const { rows } = await pool.query<{
    op: number;
    seq: number;
    worker: string;
    at: number;
    event: AgentEvent;
  }>(
    `select op, seq, worker, at, event from run_events
     where run_id = $1 and (op, seq) > ($2, $3)
     order by op, seq limit $4`,
    [runId, after?.op ?? -1, after?.seq ?? -1, limit],
  );
  return rows.map((r) => ({
    runId,
    op: r.op,
    seq: r.seq,
    worker: r.worker,
    at: Number(r.at),
    event: r.event,
  }));
}
