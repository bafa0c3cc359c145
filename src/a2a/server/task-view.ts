/**
 * How a stored run reads as an A2A task: its state, its status message, its artifacts and its
 * history, built from the run's record and the last items of its serve log (a run's stream is
 * self-contained item by item, so the end of it says where the run stands).
 */
import type { ApprovalItem, LogEntry, LogItem, QuestionItem } from "../../serve/log-items.js";
import type { RunRecord, ServeRunStatus } from "../../serve/serve-log.js";
import type { Artifact, Message, Part, Task, TaskState, TaskStatus } from "../wire.js";

/** The id of the artifact that holds a completed run's output. */
export const RESULT_ARTIFACT = "result";

const STATE_OF_STATUS: Record<ServeRunStatus, TaskState> = {
  running: "TASK_STATE_WORKING",
  awaiting_approval: "TASK_STATE_INPUT_REQUIRED",
  ok: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  aborted: "TASK_STATE_CANCELED",
  budget_exceeded: "TASK_STATE_FAILED",
  interrupted: "TASK_STATE_FAILED",
};

/** The task's state for a run status (what a `run_end` or the record says). */
export function stateOfStatus(status: ServeRunStatus): TaskState {
  return STATE_OF_STATUS[status];
}

/** An agent message of a task. */
export function agentMessage(
  run: Pick<RunRecord, "runId" | "chatId">,
  id: string,
  parts: Part[],
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId: `${run.runId}-${id}`,
    role: "ROLE_AGENT",
    parts,
    contextId: run.chatId,
    taskId: run.runId,
    ...(metadata && { metadata }),
  };
}

/** What an input-required status says: which calls wait, and how to answer. */
export function approvalMessage(
  run: Pick<RunRecord, "runId" | "chatId">,
  approvals: ApprovalItem[],
): Message {
  const list = approvals.map((a) => `${a.toolName}(${JSON.stringify(a.input)})`).join(", ");
  return agentMessage(run, `approval-${approvals[0]?.approvalId ?? "none"}`, [
    {
      text:
        `The agent waits for a decision on: ${list}. Answer on this task with a data part ` +
        `{"approved": true} or {"approved": false} (or {"decisions": [{"approvalId", "approved"}]}), ` +
        `or the text "approve" or "reject".`,
    },
    {
      data: {
        type: "glassloop.approval",
        approvals: approvals.map((a) => ({ approvalId: a.approvalId, toolName: a.toolName, input: a.input })),
      },
      mediaType: "application/json",
    },
  ]);
}

/**
 * What an input-required status says when tools asked the caller questions (an MCP server's
 * elicitation): each question's asker, text and form, and how to answer.
 */
export function questionMessage(
  run: Pick<RunRecord, "runId" | "chatId">,
  questions: QuestionItem[],
): Message {
  const list = questions.map((q) => `${q.source}: ${q.message}`).join(" / ");
  return agentMessage(run, `question-${questions[0]?.questionId ?? "none"}`, [
    {
      text:
        `The agent's tools ask: ${list}. Answer on this task with a data part ` +
        `{"answers": [{"questionId", "answer": {"action": "accept", "content": {...}}}]} ` +
        `(or "decline", "cancel"), one answer per question.`,
    },
    {
      data: {
        type: "glassloop.question",
        questions: questions.map((q) => ({
          questionId: q.questionId,
          toolName: q.toolName,
          source: q.source,
          message: q.message,
          schema: q.schema,
        })),
      },
      mediaType: "application/json",
    },
  ]);
}

/** The status message of a paused run: its questions if tools asked any, else the approvals it waits for. */
export function pauseMessage(
  run: Pick<RunRecord, "runId" | "chatId">,
  approvals: ApprovalItem[] | undefined,
  questions: QuestionItem[] | undefined,
): Message {
  return questions && questions.length > 0
    ? questionMessage(run, questions)
    : approvalMessage(run, approvals ?? []);
}

/** The artifact of a completed run: text output as a text part, typed output as a data part. */
export function resultArtifact(output: unknown): Artifact {
  const part: Part =
    typeof output === "string" ? { text: output } : { data: output ?? null, mediaType: "application/json" };
  return { artifactId: RESULT_ARTIFACT, name: "result", parts: [part] };
}

/** The status an ending item (a `run_end`, an interruption) gives the task, with its message. */
export function endStatus(
  run: Pick<RunRecord, "runId" | "chatId">,
  item: LogItem,
  lastError: string | undefined,
): { status: TaskStatus; artifact?: Artifact } | undefined {
  const timestamp = new Date().toISOString();
  if (item.kind === "interrupted")
    return {
      status: {
        state: "TASK_STATE_FAILED",
        message: agentMessage(run, "end", [{ text: `interrupted: ${item.message}` }]),
        timestamp,
      },
    };
  if (item.kind !== "event" || item.event.type !== "run_end" || item.event.status === "awaiting_approval")
    return undefined;
  const state = stateOfStatus(item.event.status);
  const timestampOf = new Date(item.event.time).toISOString();
  if (state === "TASK_STATE_COMPLETED") {
    const output = item.event.output;
    const text =
      typeof output === "string" ? output : 'The agent returned a typed result (artifact "result").';
    return {
      status: { state, message: agentMessage(run, "end", [{ text }]), timestamp: timestampOf },
      artifact: resultArtifact(output),
    };
  }
  const why = lastError ?? `the run ended ${item.event.status}`;
  return {
    status: {
      state,
      message: agentMessage(run, "end", [{ text: `${item.event.status}: ${why}` }]),
      timestamp: timestampOf,
    },
  };
}

/** The caller's message that started the run, as the task's history keeps it. */
export function userMessage(run: Pick<RunRecord, "runId" | "chatId" | "input" | "messageId">): Message {
  return {
    messageId: run.messageId ?? `${run.runId}-input`,
    role: "ROLE_USER",
    parts: [{ text: run.input }],
    contextId: run.chatId,
    taskId: run.runId,
  };
}

/**
 * The task as it stands, from its record, the last entries of its log (`tail`, in order) and its
 * stored history (`stored`: without it, the run's input stands for the caller's first message).
 * The log decides over the record: a run's end is written there before the record is updated.
 */
export function taskOf(
  run: RunRecord,
  tail: readonly LogEntry[],
  stored: readonly Message[],
  historyLength?: number,
): Task {
  let status: TaskStatus = {
    state: run.lastSeq < 0 && tail.length === 0 ? "TASK_STATE_SUBMITTED" : "TASK_STATE_WORKING",
    timestamp: new Date(run.updatedAt).toISOString(),
  };
  let artifacts: Artifact[] = [];
  let lastError: string | undefined;
  let approvals: ApprovalItem[] | undefined;
  let questions: QuestionItem[] | undefined;
  for (const { item } of tail) {
    if (item.kind === "event" && item.event.type === "error") lastError = item.event.message;
    if (item.kind === "approval") approvals = item.approvals;
    if (item.kind === "question") questions = item.questions;
    if (item.kind === "resumed") {
      approvals = undefined;
      questions = undefined;
      status = { state: "TASK_STATE_WORKING", timestamp: status.timestamp };
    }
    if (item.kind === "event" && item.event.type === "run_end" && item.event.status === "awaiting_approval")
      status = {
        state: "TASK_STATE_INPUT_REQUIRED",
        message: pauseMessage(run, approvals, questions),
        timestamp: new Date(item.event.time).toISOString(),
      };
    const ended = endStatus(run, item, lastError);
    if (ended) {
      status = ended.status;
      artifacts = ended.artifact ? [ended.artifact] : [];
    }
  }
  // A record that ended without a readable end item (a log write that failed) still says how.
  if (status.state === "TASK_STATE_WORKING" && run.status !== "running" && run.status !== "awaiting_approval")
    status = { state: stateOfStatus(run.status), timestamp: status.timestamp };
  const history = stored.length > 0 ? [...stored] : [userMessage(run)];
  // The current status message closes the history, as it stands (not stored until answered).
  const current = status.message;
  if (current && !history.some((m) => m.messageId === current.messageId)) history.push(current);
  return {
    id: run.runId,
    contextId: run.chatId,
    status,
    artifacts,
    history:
      historyLength === undefined ? history : history.slice(Math.max(0, history.length - historyLength)),
    metadata: { agent: run.agent, ...(run.usage && { usage: run.usage }) },
  };
}
