/**
 * A tool's question for the person (an MCP server's elicitation) over HTTP: when a run pauses on
 * one, each waiting question gets an opaque id kept in the log beside the approvals (so the same
 * once-only decision and ownership rules hold), the stream shows it, and an answer comes back
 * bound to that id: checked to belong to the caller's run that waits now, complete, and fitting
 * the form asked for, before the run is resumed with it.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { checkAnswer, type PendingQuestion } from "../core/questions.js";
import type { Redactor } from "../core/redact.js";
import type { PersonAnswer, PersonQuestion } from "../core/vocabulary/questions.js";
import { refuse } from "./errors.js";
import type { ApprovalItem, QuestionItem } from "./log-items.js";
import type { ApprovalRecord, RunRecord, ServeLog } from "./serve-log.js";

/** How a question's id starts: it shares the approvals' table, and neither route takes the other's. */
export const QUESTION_PREFIX = "ques_";

/** Whether a record of the approvals' table is a question. */
export function isQuestion(record: Pick<ApprovalRecord, "approvalId">): boolean {
  return record.approvalId.startsWith(QUESTION_PREFIX);
}

/**
 * The questions of a paused run as the log keeps them (rows of the approvals' table, `validated`:
 * the question as asked) and as the stream shows them: `pending` from the run here
 * (`InputRequiredError`) or on a worker (its wait).
 */
export function questionItems(
  pending: readonly PendingQuestion[],
  redactor: Redactor,
): { rows: (ApprovalItem & { validated: string })[]; shown: QuestionItem[] } {
  const rows: (ApprovalItem & { validated: string })[] = [];
  const shown: QuestionItem[] = [];
  for (const p of pending) {
    // The asker's text and form as the person sees them: scrubbed of secrets like any streamed text.
    const seen = redactor.value({
      source: p.question.source,
      message: p.question.message,
      schema: p.question.schema,
    }) as Pick<QuestionItem, "source" | "message" | "schema">;
    const questionId = `${QUESTION_PREFIX}${randomBytes(18).toString("base64url")}`;
    const { toolCallId, toolName } = p;
    rows.push({
      approvalId: questionId,
      toolCallId,
      toolName,
      input: seen,
      validated: JSON.stringify(p.question),
    });
    shown.push({ questionId, toolCallId, toolName, ...seen });
  }
  return { rows, shown };
}

const answerSchema = z.discriminatedUnion("action", [
  z.object({
    action: z.literal("accept"),
    content: z.record(
      z.string().max(200),
      z.union([z.string().max(100_000), z.number(), z.boolean(), z.array(z.string().max(10_000)).max(100)]),
    ),
  }),
  z.object({ action: z.literal("decline") }),
  z.object({ action: z.literal("cancel") }),
]);

/** The body of `POST /api/runs/:runId/answers`. */
export const answersBody = z.object({
  answers: z
    .array(z.object({ questionId: z.string().min(1).max(200), answer: answerSchema }))
    .min(1)
    .max(100),
});

/** One answer as a client sends it. */
export interface GivenAnswer {
  questionId: string;
  answer: PersonAnswer;
}

/**
 * The checks every set of answers passes before anything acts on it: each names a question of
 * `runId`, a run of `principal` (else 404, a foreign id looks exactly like a missing one); the run
 * waits now and none is answered (else 409); every waiting question is answered once, and each
 * answer fits its form (else 422). Returns the run and the answers by call id.
 */
export async function checkAnswers(
  log: ServeLog,
  principal: string,
  runId: string,
  answers: readonly GivenAnswer[],
): Promise<{ run: RunRecord; byCall: { toolCallId: string; answer: PersonAnswer }[] }> {
  const run = await log.getRun(runId);
  if (!run || run.principal !== principal) throw refuse.notFound("run");
  const found = await Promise.all(answers.map((a) => log.getApproval(a.questionId)));
  if (found.some((r) => r === undefined || r.runId !== runId || !isQuestion(r)))
    throw refuse.notFound("question");
  const records = found as ApprovalRecord[];
  if (run.status !== "awaiting_approval" || records.some((r) => r.decided))
    throw refuse.conflict("these questions were already answered, or the run is no longer waiting");
  const open = (await log.openApprovals(runId)).filter(isQuestion);
  const given = new Set(answers.map((a) => a.questionId));
  const missing = open.filter((q) => !given.has(q.approvalId));
  if (missing.length > 0 || given.size !== answers.length)
    throw refuse.invalid(
      `every waiting question must be answered once: missing ${missing.map((q) => `${q.toolName} (${q.approvalId})`).join(", ") || "none"}`,
    );
  const byCall = answers.map((a, i) => {
    const record = records[i] as ApprovalRecord;
    try {
      checkAnswer(JSON.parse(record.validated) as PersonQuestion, a.answer);
    } catch (error) {
      throw refuse.invalid(
        `the answer to ${a.questionId} does not fit the question: ${(error as Error).message}`,
      );
    }
    return { toolCallId: record.toolCallId, answer: a.answer };
  });
  return { run, byCall };
}
