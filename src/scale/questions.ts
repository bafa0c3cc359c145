import { createHash } from "node:crypto";
import { GlassloopError } from "../core/errors.js";
import { answersFor, type WaitingCall } from "../core/questions.js";
import type { AskedQuestion, PersonAnswer, PersonQuestion } from "../core/vocabulary/questions.js";
import type { AskingTurn, RunState } from "../loop/hooks.js";
import type { RunSteps } from "./run-steps.js";

/**
 * A tool's question to the person (an MCP server's elicitation, or any tool's `QuestionAsked`) in a
 * scale-out run. The call's step records "asked" (dbos-hooks.ts); once the turn's calls settled
 * the workflow publishes what waits and waits for the answers durably, as it waits for an approval
 * (DBOS.recv on a topic named by the wait's ticket), then the turn runs the asking calls again with
 * the answers on record. A crash while the question waits replays the recorded steps, so the tool
 * is not run again and the person is not asked twice; the replayed wait reads the same message.
 */

/** The DBOS event key under which a run publishes the questions that wait for the person now. */
export const QUESTIONS_WAITING_EVENT = "glassloop.questions.waiting";

/** The topic the answers to one wait are sent on (`client.answer`): named by the wait's ticket. */
export const answerTopic = (ticket: string) => `glassloop.answers:${ticket}`;

/** A call of a scale-out run waiting for the person's answer, as `client.questions(runId)` lists it. */
export interface WaitingQuestion extends WaitingCall {
  runId: string;
  /** Names this one wait: the answers must carry it, and only this wait ever reads them. */
  ticket: string;
  /** The question now waiting (the last of `questions`, which holds the call's earlier ones, answered). */
  question: PersonQuestion;
}

/** One answer, for one waiting call. */
export interface CallAnswer {
  toolCallId: string;
  answer: PersonAnswer;
}

/** The answers as sent to a waiting run: for the wait its ticket names, and no other. */
export interface AnswersMessage {
  ticket: string;
  answers: CallAnswer[];
}

/** Answers for a run where no question waits now: refused, and not kept for a later one. */
export class QuestionNotWaitingError extends GlassloopError {
  declare readonly code: "question_not_waiting";
  readonly runId: string;
  constructor(runId: string) {
    super(
      "question_not_waiting",
      `No question waits for the person in run ${runId} now; answers are for the questions waiting now and are never kept for later ones.`,
    );
    this.runId = runId;
  }
}

/**
 * The ticket of one wait: a digest of the run, the waiting calls with their questions, and `wait`
 * (the DBOS operation count, unique within the run and the same on a replay).
 */
export function questionTicket(runId: string, waiting: readonly WaitingCall[], wait: number): string {
  return createHash("sha256")
    .update(JSON.stringify(["glassloop.questions.v1", runId, waiting, wait]))
    .digest("hex");
}

/**
 * The message that answers what waits in `runId` now (`waiting`, as the run published it): refused
 * with QuestionNotWaitingError when nothing waits (or, with `expected`, when another wait than the
 * one that ticket names does), and with a ConfigError, nothing sent, unless every waiting call is
 * answered once, no other call, each answer fitting its form (checkAnswer).
 */
export function answersMessage(
  runId: string,
  waiting: readonly WaitingQuestion[],
  answers: readonly CallAnswer[],
  expected?: string,
): AnswersMessage {
  const ticket = waiting[0]?.ticket;
  if (
    ticket === undefined ||
    (expected !== undefined && ticket !== expected) ||
    waiting.some((w) => w.runId !== runId || w.ticket !== ticket)
  )
    throw new QuestionNotWaitingError(runId);
  answersFor(waiting, answers);
  return { ticket, answers: answers.map(({ toolCallId, answer }) => ({ toolCallId, answer })) };
}

/** The record a message makes for `waiting`: its answers if they fit, else each call answered "cancel". */
export function recordOf(
  waiting: readonly WaitingCall[],
  ticket: string,
  message: AnswersMessage | null,
): Map<string, AskedQuestion[]> {
  if (message !== null && message.ticket === ticket) {
    try {
      return answersFor(waiting, message.answers);
    } catch {
      // The client checks answers before it sends them: one that does not fit was not sent by it.
      // The person's form is never passed on unchecked; the asker hears "cancel".
    }
  }
  return answersFor(
    waiting,
    waiting.map((w) => ({ toolCallId: w.toolCallId, answer: { action: "cancel" } as const })),
  );
}

/**
 * The questions of one run waiting for `client.answer`, from any process, durably: the
 * `pauseForInput` hook of a scale-out run. Unanswered within `timeoutSeconds`, each is answered
 * "cancel" (as an approval is rejected).
 */
export class QuestionWaits {
  readonly #steps: RunSteps;
  readonly #timeoutSeconds: number;
  readonly #flushed: () => Promise<void>;
  /** The step each call last waited in (the same on a replay: waits replay in order). */
  readonly #waitedIn = new Map<string, number>();

  /** `flushed`: resolves once the run's events so far are written (the question's among them). */
  constructor(steps: RunSteps, timeoutSeconds: number, flushed: () => Promise<void>) {
    this.#steps = steps;
    this.#timeoutSeconds = timeoutSeconds;
    this.#flushed = flushed;
  }

  async wait(
    state: RunState<unknown>,
    step: number,
    turn: AskingTurn,
  ): Promise<Map<string, AskedQuestion[]>> {
    const runId = this.#steps.runId;
    const waiting: WaitingCall[] = [...turn.asked].map(([i, questions]) => {
      const toolCallId = turn.calls[i]?.id ?? "";
      // A call's earlier answers are its own only when it waited before in this step (it asks
      // again as it runs again). From an earlier step they were a call of the same id (a model
      // may reuse one): kept, the earlier answer would answer this call's question unasked.
      const own = this.#waitedIn.get(toolCallId) === step ? questions : questions.slice(-1);
      return { toolCallId, toolName: turn.calls[i]?.name ?? "", questions: own };
    });
    for (const w of waiting) this.#waitedIn.set(w.toolCallId, step);
    const ticket = questionTicket(runId, waiting, this.#steps.ops);
    const shown: WaitingQuestion[] = waiting.map((w) => ({
      ...w,
      runId,
      ticket,
      question: (w.questions.at(-1) as AskedQuestion).question,
    }));
    for (const w of shown)
      state.emit({
        type: "question",
        step,
        toolCallId: w.toolCallId,
        toolName: w.toolName,
        question: w.question,
      });
    // Events and the published wait go on separate connections: a client that sees the wait
    // must find the question's event too.
    await this.#flushed();
    await this.#steps.setEvent(QUESTIONS_WAITING_EVENT, shown);
    const message = await this.#steps.recv<AnswersMessage>(answerTopic(ticket), this.#timeoutSeconds);
    await this.#steps.setEvent(QUESTIONS_WAITING_EVENT, []);
    return recordOf(waiting, ticket, message);
  }
}
