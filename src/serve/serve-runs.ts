import type { Decision } from "./approval-check.js";
import type { GivenAnswer } from "./questions.js";
import type { ChatRecord, RunRecord, ServeRunStatus } from "./serve-log.js";
import type { Turn } from "./turn-session.js";

/**
 * How the routes start, continue and stop runs, whoever runs them: this process (`RunManager`,
 * each run driven here on the store) or scale-out workers (`ScaleRunManager`, each run a DBOS
 * workflow whose events this process mirrors into the serve log). The routes, the streams, the
 * ownership checks and the log are the same for both.
 */
export interface ServeRuns {
  /** Starts a turn on `chat`; the returned run's stream starts at sequence 0. */
  startTurn(principal: string, chat: ChatRecord, turn: Turn): Promise<RunRecord>;
  /**
   * Applies decisions to the run waiting for them and continues it; returns the sequence number the
   * continuation starts after. Every decision must name an approval of this principal's run that
   * waits now (else 404), undecided (else 409), and every waiting call must be decided.
   */
  decide(
    principal: string,
    decisions: readonly Decision[],
    chatId?: string,
  ): Promise<{ run: RunRecord; after: number }>;
  /**
   * Continues a run paused on tools' questions with the person's answers (each bound to a question
   * of this principal's run that waits now, every one answered, each fitting its form). Absent
   * where runs cannot pause on a question (the route then answers 404).
   */
  answer?(
    principal: string,
    runId: string,
    answers: readonly GivenAnswer[],
  ): Promise<{ run: RunRecord; after: number }>;
  /** Stops the principal's run `runId` (it ends `aborted`); another principal's run is a 404. */
  cancel(principal: string, runId: string): Promise<ServeRunStatus>;
  /** Another process asked (through the log's notice) to stop a run. */
  cancelled(runId: string): void;
  /** Keeps this process's leases from now on; with `recover`, takes over runs dead processes left. */
  start(recover: boolean): Promise<void>;
  /** Waits for every run handled here to settle (tests, shutdown). */
  settled(): Promise<void>;
  /** Stops taking runs over and hands the runs handled here over (shutdown). */
  stop(): Promise<void>;
  /** Takes no more runs over and hands the runs handled here over, each at its next step or after `withinMs`. */
  drain(withinMs: number): Promise<void>;
  /** A drain in progress hands its runs over now. */
  hurry(): void;
  /** Another process handed a run over (a notice): take it over now if this process may. */
  released(): void;
}
