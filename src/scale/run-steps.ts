import type { Redactor } from "../core/redact.js";
import { redactingJsonSink, redactingSink, type Sink } from "../core/sink.js";
import { wakeOnCancel } from "./cancellable-recv.js";
import { fromJsonOutput, jsonOutput } from "./json-output.js";
import type { DbosModule } from "./sdk.js";

/** Whether this worker may still take steps; a worker whose runs were adopted never does (see lease.ts). */
export interface Fence {
  /** True while the lease is surely held (renewed less than a lease ago): steps start at once. */
  live(): boolean;
  /** Renews the lease now: true if this worker still holds it (nobody adopted its runs meanwhile). */
  confirm(): Promise<boolean>;
  /** Called once when a step is refused: the worker stops (by default, the process exits). */
  fenced(reason: string): void;
}

/**
 * The DBOS operations of one run, counted. Every step, marker and message wait goes through
 * here, so the count is the same on a replay as on the first execution: events are keyed by it
 * (see events.ts), which is what makes a replayed event land on the row the first execution wrote.
 */
export class RunSteps {
  readonly runId: string;
  readonly #dbos: DbosModule["DBOS"];
  readonly #fence: Fence;
  /**
   * Where a step's output goes: DBOS records it in Postgres (`operation_outputs`). Scrubbed inside
   * the step, so the live run and a replay see the same (scrubbed) value.
   */
  readonly #outputs: Sink<unknown, unknown>;
  /** The same, for an output recorded as JSON text: scrubbed while it is serialized, with no copy first. */
  readonly #jsonOutputs: Sink<unknown, string>;
  /** DBOS operations started so far in this execution of the workflow. */
  #ops = 0;

  constructor(dbos: DbosModule["DBOS"], runId: string, fence: Fence, scrubber: Redactor) {
    this.#dbos = dbos;
    this.runId = runId;
    this.#fence = fence;
    this.#outputs = redactingSink("dbos step output", scrubber, (clean: unknown) => clean);
    this.#jsonOutputs = redactingJsonSink("dbos step output", scrubber, (json: string) => json);
  }

  /** How many DBOS operations this execution has started: the key events are filed under. */
  get ops(): number {
    return this.#ops;
  }

  /**
   * Runs `fn` as a DBOS step named `name`: on a replay its recorded output comes back and `fn`
   * does not run. The step's id is taken synchronously, so steps started together (a turn's
   * calls) get ids in the order they were started, on every execution alike; `fn` gets that id
   * (the run's operation count with this step), the same on every execution.
   *
   * `json`: the output is JSON by nature (a model call: wire bodies, deltas, the response) and is
   * recorded as one JSON string. DBOS's own serializer walks every value in JavaScript, which for
   * a request body that holds the whole history cost more than the rest of the step. The value is
   * scrubbed while the string is made, string by string (a secret is never looked for inside
   * escaped text), with no scrubbed copy first; live and replayed executions both get the parsed
   * string, so they see the same value.
   */
  step<T>(name: string, fn: (op: number) => Promise<T>, options: { json?: boolean } = {}): Promise<T> {
    if (!options.json) return this.#run(name, async (op) => this.#outputs.write(await fn(op)) as T);
    return this.#run<unknown>(name, async (op) => jsonOutput(this.#jsonOutputs.write(await fn(op)))).then(
      (out) => fromJsonOutput<T>(out),
    );
  }

  #run<T>(name: string, recorded: (op: number) => Promise<T>): Promise<T> {
    const start = () => {
      const op = ++this.#ops;
      return this.#dbos.runStep(() => recorded(op), { name });
    };
    if (this.#fence.live()) return start();
    // The lease looks old (a stalled event loop, a slow database): ask the database first. Steps
    // asked for meanwhile wait on the same answer and start in the order they were asked, so
    // their ids are still taken in call order.
    return this.#confirmed().then(start);
  }

  /**
   * Waits for a message on `topic` (DBOS.recv): durable, so a replay gets the same message. A
   * cancel of the run ends the wait within about a second (cancellable-recv.ts).
   */
  recv<T>(topic: string, timeoutSeconds: number): Promise<T | null> {
    const take = async () => {
      this.#ops++;
      // recv takes its operation ids now, synchronously; the cancel watch starts beside it.
      const waiting = this.#dbos.recv<T>(topic, timeoutSeconds);
      const stop = wakeOnCancel(this.runId, topic).catch(() => () => {});
      try {
        return await waiting;
      } finally {
        (await stop)();
      }
    };
    return this.#fence.live() ? take() : this.#confirmed().then(take);
  }

  /** Publishes `value` under `key` (DBOS.setEvent): clients read the latest with `getEvent`. */
  setEvent<T>(key: string, value: T): Promise<void> {
    const publish = () => {
      this.#ops++;
      return this.#dbos.setEvent<T>(key, value);
    };
    return this.#fence.live() ? publish() : this.#confirmed().then(publish);
  }

  /**
   * Resolves when this worker may still write for the run, as a step would (its lease held);
   * never, if the lease is lost. For a write that is not a step because it is idempotent itself.
   */
  held(): Promise<void> {
    return this.#fence.live() ? Promise.resolve() : this.#confirmed();
  }

  #confirming: Promise<void> | undefined;

  /** Resolves once the lease is confirmed; never, if it is lost (the worker is stopping then). */
  #confirmed(): Promise<void> {
    this.#confirming ??= this.#fence.confirm().then((held) => {
      this.#confirming = undefined;
      if (held) return;
      this.#fence.fenced(`run ${this.runId}: this worker's lease is lost, so it takes no further step`);
      return NEVER;
    });
    return this.#confirming;
  }
}

/**
 * What a fenced worker's workflow waits on: nothing. Settling would let DBOS record the run as
 * ended (or failed) by a worker that no longer owns it; the worker shuts down instead, and the
 * run's new owner finishes it.
 */
const NEVER: Promise<never> = new Promise<never>(() => {});
