/**
 * Where a run on scale-out workers stands in the serve log, read back from the log alone, so any
 * server process (this one after a decision, another after this one died) continues it exactly.
 *
 * A run's items come in segments: the first from the run's start, each next one from the
 * `resumed` marker after a pause (for approval, or for the person's answer to a tool's question). The items of a segment are a function of the
 * worker's events alone (the normalizer is deterministic), so a process that takes a running
 * segment over makes its items again from the segment's first worker event and skips as many as
 * the log holds: the stream goes on from the log's last item, nothing twice, nothing missing,
 * text the dead process still held back for scrubbing included.
 */
import type { ApprovalSubject } from "../features/approval/approval-rule.js";
import { isFinal, type LogItem } from "./log-items.js";
import type { RunRecord, ServeLog, ServeRunStatus } from "./serve-log.js";

/** A worker event's place in the run (the scale client's `EventPosition`). */
export interface WorkerPosition {
  op: number;
  seq: number;
}

/** One segment of a run's items, as a follower starts or continues it. */
export interface ScaleSegment {
  /** The sequence number of the segment's first item: its part ids are numbered from it. */
  start: number;
  /** The worker event the segment follows (absent: it follows the run's start). */
  after?: WorkerPosition;
  /** Items of the segment the log holds already: made again and skipped, not appended. */
  stored: number;
  /** The calls the last pause decided: a wait for one of them still listed is no new pause. */
  decided: readonly ApprovalSubject[];
  /**
   * The worker's question wait the last pause answered (its ticket), if it paused on questions:
   * still listed, it is no new pause; a new question (even of the same call) has a new ticket.
   */
  answered?: string;
  /** Tool call ids the model asked for in the step in progress where the segment starts. */
  calls: readonly string[];
  /** The segment's first item, when it has one (`resumed` after a pause). */
  marker?: LogItem;
}

/** A run's state in the log: a segment going on, a pause (and the segment a decision starts), or its end. */
export type ScaleRunState =
  | { kind: "open"; segment: ScaleSegment }
  | { kind: "paused"; next: ScaleSegment }
  | { kind: "ended"; status: ServeRunStatus };

/** The first segment of a new run. */
export const FIRST_SEGMENT: ScaleSegment = { start: 0, stored: 0, decided: [], calls: [] };

/** Reads `run`'s items from the log (page by page) and says where it stands. */
export async function scanScaleRun(log: ServeLog, run: RunRecord): Promise<ScaleRunState> {
  let start = 0;
  let lastSeq = -1;
  let last: LogItem | undefined;
  let pause: Pause | undefined;
  let calls: string[] = [];
  let callsAtStart: string[] = [];
  for (let after = -1; ; ) {
    const entries = await log.read(run.runId, after, 500);
    if (entries.length === 0) break;
    for (const { seq, item } of entries) {
      lastSeq = seq;
      last = item;
      if (item.kind === "approval" || item.kind === "question") pause = item;
      else if (item.kind === "resumed") {
        start = seq;
        callsAtStart = calls;
      } else if (item.kind === "event" && item.event.type === "step_start") calls = [];
      else if (
        item.kind === "event" &&
        item.event.type === "model_response" &&
        item.event.purpose === undefined
      )
        calls = [...calls, ...item.event.toolCalls.map((c) => c.id)];
    }
    after = lastSeq;
  }
  if (last !== undefined && isFinal(last))
    return {
      kind: "ended",
      status: last.kind === "event" && last.event.type === "run_end" ? last.event.status : "interrupted",
    };
  // What the segment after the last pause starts from: where the worker's events go on, and the
  // wait that pause settled (still listed for a moment after the reply, it is no new pause).
  const since = pause ? await settled(log, run.runId, pause) : { decided: [] };
  const marker: LogItem = { kind: "resumed", reason: pause?.kind === "question" ? "answer" : "approval" };
  if (last?.kind === "event" && last.event.type === "run_end")
    return { kind: "paused", next: { start: lastSeq + 1, ...since, stored: 0, calls, marker } };
  const segment: ScaleSegment =
    start === 0
      ? { start: 0, stored: lastSeq + 1, decided: [], calls: [] }
      : { start, ...since, stored: lastSeq - start + 1, calls: callsAtStart, marker };
  return { kind: "open", segment };
}

/** A pause's item in the log. */
type Pause = Extract<LogItem, { kind: "approval" | "question" }>;

/** What a segment after `pause` knows of it: the worker event it follows, and the wait it settled. */
async function settled(
  log: ServeLog,
  runId: string,
  pause: Pause,
): Promise<Pick<ScaleSegment, "after" | "decided" | "answered">> {
  const after = pause.after && { after: pause.after };
  if (pause.kind === "question")
    return { ...after, decided: [], ...(pause.ticket !== undefined && { answered: pause.ticket }) };
  return { ...after, decided: await subjects(log, runId, pause) };
}

/** The calls an approval item asked about, as the log recorded them (validated arguments included). */
async function subjects(
  log: ServeLog,
  runId: string,
  item: Extract<LogItem, { kind: "approval" }>,
): Promise<ApprovalSubject[]> {
  const records = await Promise.all(item.approvals.map((a) => log.getApproval(a.approvalId)));
  return records.flatMap((r) =>
    r ? [{ runId, toolCallId: r.toolCallId, toolName: r.toolName, arguments: r.validated }] : [],
  );
}
