import { randomUUID } from "node:crypto";
import { ConfigError } from "../core/errors.js";
import type { Limits } from "../core/vocabulary/limits.js";
import type { FilePart, ImagePart } from "../core/vocabulary/messages.js";
import type { ApprovalTarget, WaitingApproval } from "../features/approval/approval-rule.js";
import { PostgresStore } from "../store/postgres/postgres-store.js";
import { listenForEvents } from "./event-notices.js";
import { type EventPosition, readEvents, type ScaleEvent } from "./events.js";
import { fromJsonOutput } from "./json-output.js";
import type { CallAnswer, WaitingQuestion } from "./questions.js";
import { RunHandle } from "./run-handle.js";
import { listQueuedRuns, type QueuedRun, queuedRequest, type RunListFilter } from "./run-list.js";
import { answerQuestions, approveCall, pendingApprovals, waitingQuestions } from "./run-waits.js";
import { openScaleDb, SCALE_SCHEMA, type ScaleDb, whileLocked } from "./scale-db.js";
import { type DbosClient, dbosSystemUrl, loadDbos } from "./sdk.js";
import { DEFAULT_QUEUE, DEFAULT_STORE_SCHEMA, type ScaleConnection } from "./worker.js";
import { runQueue } from "./worker-queue.js";
import { type QueuedRunResult, RUN_WORKFLOW, type RunRequest } from "./workflow.js";

/** Options of `client.enqueue`. */
export interface EnqueueOptions {
  /** A conversation in the Postgres store; runs of one session run one at a time, in order. */
  session?: string;
  limits?: Limits;
  /** The run's id (default `run_<uuid>`); enqueuing an id again returns the existing run. */
  runId?: string;
  /** Only workers of this application version take it (default: the latest version registered). */
  version?: string;
  /** Ask the model to stream: the run's events then carry its text as it comes (`text_delta`). */
  stream?: boolean;
  /**
   * Images sent with the input. They travel in the workflow's input (a row in Postgres, read again
   * on a replay): keep them small, or send them by URL.
   */
  images?: readonly ImagePart[];
  /** Documents (PDFs) sent with the input, after the images; in the workflow's input as `images`. */
  files?: readonly FilePart[];
  /**
   * A tool's question to the person (an MCP server's elicitation): `"wait"` (default) pauses the
   * run until `answer`; `"fail"` fails the call with a message the model reads, for a client that
   * cannot show questions to anyone.
   */
  questions?: "wait" | "fail";
}

/**
 * The client side of scale-out: enqueue runs for the workers, follow them, answer approvals and
 * tools' questions, and cancel them, from any process that reaches the database.
 */
export class ScaleClient {
  readonly queue: string;
  readonly #dbos: DbosClient;
  readonly #db: ScaleDb;
  readonly #pollMs: number;
  readonly #storeAt: { url: string; schema: string };
  #store: Promise<PostgresStore> | undefined;

  private constructor(
    dbos: DbosClient,
    db: ScaleDb,
    queue: string,
    pollMs: number,
    storeAt: { url: string; schema: string },
  ) {
    this.#dbos = dbos;
    this.#db = db;
    this.queue = queue;
    this.#pollMs = pollMs;
    this.#storeAt = storeAt;
  }

  /** Connects to the workers' database (`url`, default `GLASSLOOP_POSTGRES_URL`). */
  static async connect(
    options: ScaleConnection & { queue?: string; pollMs?: number } = {},
  ): Promise<ScaleClient> {
    const url = options.url ?? process.env.GLASSLOOP_POSTGRES_URL;
    if (url === undefined || url === "")
      throw new ConfigError(
        "The scale-out client needs Postgres: pass { url } or set GLASSLOOP_POSTGRES_URL",
      );
    // Loaded first: without DBOS, the error names the command that installs it (and pg).
    const { DBOS, DBOSClient } = await loadDbos();
    // One connection may be held to listen for the workers' writes (`listen`).
    const db = await openScaleDb(url, options.scaleSchema ?? SCALE_SCHEMA, 4);
    try {
      // DBOS's tables may not exist yet (no worker ever started): creating them is idempotent.
      // Under the same lock as the workers' migrations: concurrent ones fail on a half-made schema.
      await whileLocked(db, () =>
        DBOS.migrate(url, { ...(options.dbosSchema !== undefined && { schemaName: options.dbosSchema }) }),
      );
      const dbos = await DBOSClient.create({
        systemDatabaseUrl: dbosSystemUrl(url),
        applicationName: options.appName ?? "glassloop",
        ...(options.dbosSchema !== undefined && { systemDatabaseSchemaName: options.dbosSchema }),
      });
      return new ScaleClient(dbos, db, options.queue ?? DEFAULT_QUEUE, options.pollMs ?? 200, {
        url,
        schema: options.storeSchema ?? DEFAULT_STORE_SCHEMA,
      });
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  /** Enqueues a run of the worker module's agent `agent`; a worker picks it up. */
  async enqueue(agent: string, input: string, options: EnqueueOptions = {}): Promise<RunHandle> {
    if (typeof agent !== "string" || agent === "") throw new ConfigError("enqueue needs an agent name");
    if (typeof input !== "string") throw new ConfigError("The run's input must be a string");
    const runId = options.runId ?? `run_${randomUUID()}`;
    const request: RunRequest = {
      agent,
      input,
      ...(options.session !== undefined && { session: options.session }),
      ...(options.limits && { limits: options.limits }),
      ...(options.stream === true && { stream: true }),
      ...(options.images?.length && { images: [...options.images] }),
      ...(options.files?.length && { files: [...options.files] }),
      ...(options.questions === "fail" && { questions: "fail" as const }),
    };
    await this.#dbos.enqueue(
      {
        ...runQueue(this.queue, options.session),
        workflowName: RUN_WORKFLOW,
        workflowID: runId,
        ...(options.version !== undefined && { appVersion: options.version }),
      },
      request,
    );
    return new RunHandle(this, runId);
  }

  /** A handle on a run enqueued earlier (by this or another process). */
  handle(runId: string): RunHandle {
    return new RunHandle(this, runId);
  }

  /** Waits for `runId` to end. */
  async result(runId: string): Promise<QueuedRunResult> {
    try {
      // JSON text from a worker of this release (json-output.ts), the value itself from an older one.
      return fromJsonOutput<QueuedRunResult>(
        await this.#dbos.retrieveWorkflow<unknown>(runId).getResult({ pollingIntervalMs: this.#pollMs }),
      );
    } catch (error) {
      const status = await this.#dbos.getWorkflow(runId);
      if (status?.status === "CANCELLED")
        return {
          status: "aborted",
          error: { code: "aborted", message: "The run was cancelled" },
          messages: [],
        };
      throw error;
    }
  }

  /**
   * One page of `runId`'s events after `after` (from its first event when absent), in run order,
   * at most `limit`, without waiting: for a reader that keeps its own place (the HTTP server
   * mirrors a run's events into its serve log, resuming after the last one it took).
   */
  async readEvents(runId: string, after?: EventPosition, limit = 500): Promise<ScaleEvent[]> {
    return readEvents(this.#db.pool, runId, after, Math.max(1, Math.min(limit, 5_000)));
  }

  /**
   * Calls `listener` each time workers write events, with the ids of the runs written (an empty
   * list: any run, e.g. after the listening connection was lost and notices were missed), until
   * the returned function is called. Notices make a reader quick, not correct: it must still read
   * from its own position (and poll now and then, for a notice lost on the way).
   */
  listen(listener: (runIds: string[]) => void): Promise<() => Promise<void>> {
    return listenForEvents(this.#db.pool, listener);
  }

  /**
   * DBOS's status of `runId` now (ENQUEUED, PENDING, SUCCESS, ERROR, CANCELLED, …), or undefined
   * when no run of that id was enqueued.
   */
  async status(runId: string): Promise<string | undefined> {
    return (await this.#dbos.getWorkflow(runId))?.status;
  }

  /** The events of `runId` in order, polled from the database until the run has ended. */
  async *events(runId: string, options: { after?: EventPosition } = {}): AsyncGenerator<ScaleEvent> {
    let after = options.after;
    for (;;) {
      const batch = await readEvents(this.#db.pool, runId, after);
      for (const item of batch) {
        yield item;
        after = { op: item.op, seq: item.seq };
        if (item.event.type === "run_end") return;
      }
      if (batch.length > 0) continue;
      const status = await this.#dbos.getWorkflow(runId);
      if (status === undefined) throw new ConfigError(`No run ${JSON.stringify(runId)} was enqueued`);
      if (status.status !== "ENQUEUED" && status.status !== "PENDING" && status.status !== "DELAYED") {
        // Ended without a run_end event (cancelled, or refused before it started): what is written is all.
        const rest = await readEvents(this.#db.pool, runId, after);
        for (const item of rest) yield item;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
    }
  }

  /** The calls of run `runId` waiting for a decision now: what `approve` can decide. */
  pending(runId: string): Promise<WaitingApproval[]> {
    return pendingApprovals(this.#dbos, runId);
  }

  /**
   * Decides a call waiting for approval in run `runId`, from any process. `call` is the call as
   * shown to the person (id, tool, validated arguments, e.g. an entry of `pending`): the decision
   * binds to exactly that wait. A bare call id binds to the call waiting under that id now. A
   * decision for a call that does not wait is refused with `ApprovalNotWaitingError` and not sent,
   * so it can never be read by a later call that reuses the id.
   */
  approve(runId: string, call: ApprovalTarget, approved: boolean): Promise<void> {
    return approveCall(this.#dbos, runId, call, approved);
  }

  /** The questions of run `runId` waiting for the person's answer now: what `answer` can answer. */
  questions(runId: string): Promise<WaitingQuestion[]> {
    return waitingQuestions(this.#dbos, runId);
  }

  /**
   * Answers the questions waiting in run `runId`, from any process: every waiting call once, each
   * answer checked against its form. Refused before anything is sent: answers where none waits
   * (`QuestionNotWaitingError`), or for a call that does not wait in this run, or that do not fit
   * (`ConfigError`). The run then runs the asking calls again with the answers. `ticket` (a
   * `WaitingQuestion`'s) binds the answers to that one wait: refused when another waits now.
   */
  answer(runId: string, answers: readonly CallAnswer[], options: { ticket?: string } = {}): Promise<void> {
    return answerQuestions(this.#dbos, runId, answers, options.ticket);
  }

  /** Cancels `runId`: it stops at its next step, on whichever worker. */
  async cancel(runId: string): Promise<void> {
    await this.#dbos.cancelWorkflow(runId);
  }

  /** The runs, newest first; `worker` keeps those of one executor id, `status` those in one DBOS status. */
  listRuns(options: RunListFilter = {}): Promise<QueuedRun[]> {
    return listQueuedRuns(this.#dbos, options);
  }

  /** What run `runId` was enqueued with (agent, input, session, files…), or undefined when no such run was. */
  request(runId: string): Promise<RunRequest | undefined> {
    return queuedRequest(this.#dbos, runId);
  }

  /**
   * The workers' Postgres store (their run records and sessions), connected on first use and
   * closed with the client: to read a session, or fork one before enqueuing a run on the copy.
   */
  store(): Promise<PostgresStore> {
    if (!this.#store) {
      const opening = PostgresStore.connect(this.#storeAt);
      this.#store = opening;
      // A failed connection is not kept: the next call tries again.
      opening.catch(() => {
        if (this.#store === opening) this.#store = undefined;
      });
    }
    return this.#store;
  }

  /** Closes the client's connections. */
  async close(): Promise<void> {
    const store = this.#store;
    this.#store = undefined;
    await this.#dbos.destroy();
    await this.#db.close();
    await (await store?.catch(() => undefined))?.close();
  }
}
