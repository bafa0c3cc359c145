import { sessionColumnsOf, withoutSteps } from "../run-row.js";
import type { EndedRun } from "../store.js";
import type { PgClient } from "./pg-driver.js";
import { uniqueSteps } from "./pg-run-writes.js";

/**
 * Inserts a run that already ended, with its transcript and steps, in one statement (one round
 * trip, atomic by itself): `createRun` then `finishRun` cost two transactions and thirteen round
 * trips, once per scale-out run. A run whose record exists already is left as it is: the row
 * insert does nothing on the conflict, and the transcript and steps are inserted only with a new
 * row. Returns whether the row was new. The caller saves the session, if any, in its transaction.
 */
export async function insertEndedRun(c: PgClient, run: EndedRun): Promise<boolean> {
  const now = Date.now();
  const steps = uniqueSteps(run.usage.steps);
  const messages = run.messages;
  const result = await c.query<{ written: number }>({
    // Named, so each connection parses and plans it once: every scale-out run ends with it.
    name: "glassloop_ended_run",
    text: `WITH r AS (
         INSERT INTO runs (id, agent, model, input, status, owner_pid, owner_host, session_id, session_offset,
           session_base, session_version, usage, progress, tools, output, error, message_count, created_at,
           updated_at, lease_until)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, '{"pending":[]}', $13, $14, $15, $16, $17, $17,
           $22)
         ON CONFLICT (id) DO NOTHING RETURNING id),
       m AS (INSERT INTO run_messages (run_id, seq, message)
             SELECT r.id, t.s, t.m FROM r, unnest($18::int[], $19::json[]) AS t(s, m)),
       st AS (INSERT INTO run_steps (run_id, step_index, usage)
              SELECT r.id, t.s, t.u FROM r, unnest($20::int[], $21::json[]) AS t(s, u))
       SELECT count(*)::int AS written FROM r`,
    values: [
      run.runId,
      run.agent,
      run.model,
      JSON.stringify(run.input),
      run.status,
      run.owner.pid,
      run.owner.host,
      ...sessionColumnsOf(run.session),
      JSON.stringify(withoutSteps(run.usage)),
      run.tools === undefined ? null : JSON.stringify(run.tools),
      run.output === undefined ? null : JSON.stringify(run.output),
      run.error === undefined ? null : JSON.stringify(run.error),
      messages.length,
      now,
      messages.map((_, i) => i),
      messages.map((m) => JSON.stringify(m)),
      steps.map((s) => s.step),
      steps.map((s) => JSON.stringify(s)),
      run.owner.leaseUntil ?? null,
    ],
  });
  return result.rows[0]?.written === 1;
}
