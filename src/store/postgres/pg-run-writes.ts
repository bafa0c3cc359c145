import type { Message } from "../../core/vocabulary/messages.js";
import type { StepUsage } from "../../core/vocabulary/usage.js";
import type { PendingCall } from "../store.js";
import type { PgClient } from "./pg-driver.js";

// The row-shaping writes the Postgres runs and sessions share: messages and steps in one
// statement each, and the call and step lists deduplicated for a single statement.

/** Appends `messages.slice(from)` in one statement. */
export async function appendMessages(
  c: PgClient,
  runId: string,
  messages: readonly Message[],
  from: number,
  table: "run_messages" | "session_messages" = "run_messages",
  seqOffset = 0,
): Promise<void> {
  if (from >= messages.length) return;
  const seqs: number[] = [];
  const texts: string[] = [];
  for (let i = from; i < messages.length; i++) {
    seqs.push(i - seqOffset);
    texts.push(JSON.stringify(messages[i]));
  }
  const key = table === "run_messages" ? "run_id" : "session_id";
  await c.query(
    `INSERT INTO ${table} (${key}, seq, message) SELECT $1, s, m FROM unnest($2::int[], $3::json[]) AS t(s, m)`,
    [runId, seqs, texts],
  );
}

/** Steps are keyed by their number, so a checkpoint may carry only the steps that changed. */
export async function writeSteps(c: PgClient, runId: string, steps: readonly StepUsage[]): Promise<void> {
  if (steps.length === 0) return;
  const unique = uniqueSteps(steps);
  await c.query(
    `INSERT INTO run_steps (run_id, step_index, usage) SELECT $1, s, u FROM unnest($2::int[], $3::json[]) AS t(s, u)
     ON CONFLICT (run_id, step_index) DO UPDATE SET usage = excluded.usage`,
    [runId, unique.map((s) => s.step), unique.map((s) => JSON.stringify(s))],
  );
}

/** One statement cannot touch a row twice: a repeated call id keeps its first place and last value. */
export function uniqueCalls(calls: readonly PendingCall[]): PendingCall[] {
  const byId = new Map<string, PendingCall>();
  for (const call of calls) byId.set(call.call.id, call);
  return [...byId.values()];
}

/** The steps by number, the last of a repeated number winning. */
export function uniqueSteps(steps: readonly StepUsage[]): StepUsage[] {
  return [...new Map(steps.map((s) => [s.step, s])).values()];
}
