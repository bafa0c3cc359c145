/** The handle `ScaleClient.enqueue` and `ScaleClient.run` give back for one run. */
import type { EventPosition, ScaleEvent } from "./events.js";
import type { QueuedRunResult } from "./workflow.js";

/** What a handle asks of its client (the `ScaleClient`), by run id. */
export interface RunControls {
  result(runId: string): Promise<QueuedRunResult>;
  events(runId: string, options: { after?: EventPosition }): AsyncIterable<ScaleEvent>;
  cancel(runId: string): Promise<void>;
}

/** A run enqueued by a client: its result, its events, and the means to cancel it. */
export class RunHandle {
  readonly runId: string;
  readonly #client: RunControls;

  constructor(client: RunControls, runId: string) {
    this.#client = client;
    this.runId = runId;
  }

  /** Waits for the run to end, on whichever worker; a cancelled run ends `aborted`. */
  result(): Promise<QueuedRunResult> {
    return this.#client.result(this.runId);
  }

  /** Every event of the run, in order, as workers write them, until the run ends. */
  events(options: { after?: EventPosition } = {}): AsyncIterable<ScaleEvent> {
    return this.#client.events(this.runId, options);
  }

  /** Cancels the run: it stops at its next step. */
  cancel(): Promise<void> {
    return this.#client.cancel(this.runId);
  }
}
