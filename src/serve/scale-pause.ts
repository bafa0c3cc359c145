/**
 * Where a run followed from its worker stands as its events are read, and its pauses: a worker
 * that waits for a person (calls for a decision, or a tool's question for an answer) is shown
 * as a pause in the serve log, exactly as a run driven here pauses, with ids a client replies to.
 */
import { randomBytes } from "node:crypto";
import type { Redactor } from "../core/redact.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { RunUsage } from "../core/vocabulary/usage.js";
import { bindsTo, type WaitingApproval } from "../features/approval/approval-rule.js";
import { emptyUsage } from "../loop/usage.js";
import type { ScaleClient } from "../scale/client.js";
import type { WaitingQuestion } from "../scale/questions.js";
import type { ApprovalItem, LogItem } from "./log-items.js";
import type { EventNormalizer } from "./normalize.js";
import { questionItems } from "./questions.js";
import type { ScaleSegment, WorkerPosition } from "./scale-segment.js";
import type { RunRecord, ServeLog } from "./serve-log.js";
import { parseOutput } from "./tool-output.js";

/** What a follower knows of its run as it reads. */
export interface FollowState {
  /** The last worker event read. */
  after: WorkerPosition | undefined;
  /** Tool call ids the model asked for in the step in progress. */
  calls: Set<string>;
  /** The run's totals, as of its last step. */
  usage: RunUsage | undefined;
}

/** Takes one worker event into `state`. */
export function track(state: FollowState, event: AgentEvent): void {
  if (event.type === "step_start") state.calls = new Set();
  else if (event.type === "model_response" && event.purpose === undefined)
    for (const call of event.toolCalls) state.calls.add(call.id);
  else if ((event.type === "step_end" || event.type === "run_end") && event.usage) state.usage = event.usage;
}

/** What a worker waits for from the person now. */
export type WorkerWait =
  | { kind: "approval"; waiting: readonly WaitingApproval[] }
  | { kind: "question"; waiting: readonly WaitingQuestion[] };

/**
 * The person's wait the worker of `runId` published, if it is a new one: not the wait `segment`
 * resumed from (still listed for a moment after the reply reached the worker), and only once the
 * model's answer that asked for its calls is mirrored. A question asked again after an answer (the
 * same call asking anew, or a model calling the tool again) is a new wait with a new ticket.
 */
export async function workerWait(
  client: ScaleClient,
  runId: string,
  segment: ScaleSegment,
  state: FollowState,
): Promise<WorkerWait | undefined> {
  const mirrored = (id: string) => state.calls.has(id);
  const approvals = (await client.pending(runId)).filter((w) => !segment.decided.some((d) => bindsTo(d, w)));
  if (approvals.length > 0 && approvals.every((w) => mirrored(w.toolCallId)))
    return { kind: "approval", waiting: approvals };
  const questions = (await client.questions(runId)).filter((q) => q.ticket !== segment.answered);
  if (questions.length > 0 && questions.every((q) => mirrored(q.toolCallId)))
    return { kind: "question", waiting: questions };
  return undefined;
}

/** What recording a pause needs from the follower. */
export interface PauseContext {
  log: ServeLog;
  redactor: Redactor;
  /** The follower, fencing the log's writes. */
  driver: string;
  normalizer: EventNormalizer;
  put: (items: LogItem[]) => void;
}

/**
 * Records the pause: each waiting call gets an opaque id in the log (`appr_`, `ques_`), the
 * stream shows them, then the segment's `run_end` (`awaiting_approval`). The item keeps where the
 * worker's events go on (`after`) and, for questions, the wait the answers are for (`ticket`).
 */
export async function recordPause(
  run: RunRecord,
  wait: WorkerWait,
  state: FollowState,
  o: PauseContext,
): Promise<void> {
  let item: LogItem;
  const after = state.after && { after: state.after };
  if (wait.kind === "approval") {
    const approvals: (ApprovalItem & { validated: string })[] = wait.waiting.map((w) => ({
      approvalId: `appr_${randomBytes(18).toString("base64url")}`,
      toolCallId: w.toolCallId,
      toolName: w.toolName,
      input: o.redactor.value(parseOutput(w.arguments)),
      validated: w.arguments,
    }));
    await o.log.addApprovals(run.runId, approvals, o.driver);
    item = { kind: "approval", approvals: approvals.map(({ validated: _v, ...shown }) => shown), ...after };
  } else {
    const { rows, shown } = questionItems(wait.waiting, o.redactor);
    await o.log.addApprovals(run.runId, rows, o.driver);
    item = {
      kind: "question",
      questions: shown,
      ...after,
      ticket: (wait.waiting[0] as WaitingQuestion).ticket,
    };
  }
  const closing = o.normalizer.push({
    type: "run_end",
    runId: run.runId,
    time: Date.now(),
    status: "awaiting_approval",
    usage: state.usage ?? emptyUsage(false),
    messages: [],
  });
  const held = o.normalizer.takeHeldEnd();
  o.put([...closing, item, ...(held ? [{ kind: "event" as const, event: held }] : [])]);
}
