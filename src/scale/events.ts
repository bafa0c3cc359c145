import { DeltaScrubber } from "../core/delta-scrub.js";
import type { Redactor } from "../core/redact.js";
import { redactingJsonSink, type Sink } from "../core/sink.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { PgPool } from "../store/postgres/pg-driver.js";
import { type EventWriter, eventWriter } from "./event-writer.js";

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
 * Numbers one run's events for `run_events`, keyed by (operation count, place after it), scrubs
 * them, and hands them to its worker's EventWriter. A replay after a crash emits the same events
 * under the same keys, so the rows the dead worker wrote stay (with its name) and the ones it
 * never wrote are filled in: each event exactly once, in the order of the run, whichever workers
 * took part. That is also why writes may wait (see event-writer.ts): events a crash kept from being
 * written are written by the replay. Writes never block the loop.
 */
export class EventLog {
  readonly #writer: EventWriter;
  readonly #runId: string;
  /**
   * Each event is scrubbed on its way to `run_events`, where any client with the URL reads it:
   * scrubbed while it is serialized, so no copy of it is made (a `model_request` event holds the
   * whole history) and its row waits for the write as one string (see EventRow).
   */
  readonly #events: Sink<AgentEvent, string>;
  /**
   * Text, reasoning and tool-argument deltas are scrubbed as streams (a secret split across two is
   * caught), each still one row: a replay after a crash numbers them as the first execution did.
   */
  readonly #deltas: DeltaScrubber;
  #op = -1;
  #seq = 0;

  /** Events of `runId`, written on `pool` under `worker`'s name by that worker's one writer. */
  constructor(pool: PgPool, runId: string, worker: string, scrubber: Redactor) {
    this.#writer = eventWriter(pool, worker);
    this.#runId = runId;
    this.#events = redactingJsonSink("run events", scrubber, (json: string) => json);
    this.#deltas = new DeltaScrubber(scrubber);
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
    this.#writer.add(this.#runId, { op: this.#op, seq: this.#seq++, json: this.#events.write(event) });
  };

  /** Waits until every recorded event is written (what a stream still held too); a failed write is thrown here. */
  async flushed(): Promise<void> {
    this.#deltas.end(this.#keep);
    await this.#writer.flushed(this.#runId);
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
