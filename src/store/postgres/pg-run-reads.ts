import type { Message } from "../../core/vocabulary/messages.js";
import type { StoredRunStatus } from "../../core/vocabulary/status.js";
import type { StepUsage } from "../../core/vocabulary/usage.js";
import { ownerOf } from "../run-claim.js";
import { sessionLinkOf, summaryOf } from "../run-row.js";
import type { PendingCall, RunProgress, StoredRun, StoredRunSummary } from "../store.js";
import type { PgClient } from "./pg-driver.js";
import type { PgRunRow } from "./pg-run-row.js";

// The reads of the Postgres runs tables: a run assembled from its row and child rows, and the
// run list. They take no locks of their own; the caller's transaction decides what they see.

/** The runs matching `filter`, newest first. */
export async function listRuns(
  c: PgClient,
  filter: { status?: StoredRunStatus; sessionId?: string; limit?: number },
): Promise<StoredRunSummary[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  if (filter.status !== undefined) {
    args.push(filter.status);
    where.push(`status = $${args.length}`);
  }
  if (filter.sessionId !== undefined) {
    args.push(filter.sessionId);
    where.push(`session_id = $${args.length}`);
  }
  args.push(filter.limit ?? 100);
  const rows = await c.query<PgRunRow>(
    `SELECT id, agent, status, session_id, input, created_at, updated_at FROM runs
     ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, id LIMIT $${args.length}`,
    args,
  );
  return rows.rows.map(summaryOf);
}

/** A stored run from its row plus its transcript, step and call rows. */
export async function storedRunOf(c: PgClient, row: PgRunRow): Promise<StoredRun> {
  const [messages, steps, calls] = [
    await c.query<{ message: Message }>("SELECT message FROM run_messages WHERE run_id = $1 ORDER BY seq", [
      row.id,
    ]),
    await c.query<{ usage: StepUsage }>("SELECT usage FROM run_steps WHERE run_id = $1 ORDER BY step_index", [
      row.id,
    ]),
    await c.query<{ pending: PendingCall }>("SELECT pending FROM run_calls WHERE run_id = $1 ORDER BY seq", [
      row.id,
    ]),
  ];
  const progress: RunProgress = {
    ...(row.progress as Partial<RunProgress>),
    pending: calls.rows.map((r) => r.pending),
  };
  return {
    runId: row.id,
    agent: row.agent,
    model: row.model,
    input: row.input,
    status: row.status,
    owner: ownerOf(row),
    messages: messages.rows.map((r) => r.message),
    usage: { ...row.usage, steps: steps.rows.map((r) => r.usage) },
    progress,
    ...(row.session_id !== null && { session: sessionLinkOf(row) }),
    ...(row.tools !== null && { tools: row.tools }),
    ...(row.output !== null && { output: row.output }),
    ...(row.error !== null && { error: row.error }),
    fence: row.fence,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
