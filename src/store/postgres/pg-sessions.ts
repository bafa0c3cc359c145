import { ConfigError } from "../../core/errors.js";
import type { Message } from "../../core/vocabulary/messages.js";
import { openToolCalls } from "../../memory/transcript.js";
import { SessionBusyError, StoreError, UnknownSessionError } from "../errors.js";
import type { RunSessionLink, SessionInfo, SessionSnapshot } from "../store.js";
import type { PgClient } from "./pg-driver.js";
import { appendMessages } from "./pg-run-writes.js";
import type { PgRuns } from "./pg-runs.js";

interface SessionRow {
  id: string;
  version: number;
  lock_run_id: string | null;
  created_at: number;
  updated_at: number;
}

/**
 * The sessions tables on Postgres. A session is serialized across processes by its row lock
 * (SELECT … FOR UPDATE) inside the caller's transaction, and held between transactions by
 * `lock_run_id`, which names the run that may save into it.
 */
export class PgSessions {
  readonly #location: string;
  readonly #runs: PgRuns;

  constructor(location: string, runs: PgRuns) {
    this.#location = location;
    this.#runs = runs;
  }

  async lock(c: PgClient, sessionId: string, runId: string): Promise<SessionSnapshot> {
    checkSessionId(sessionId);
    const now = Date.now();
    await c.query(
      `INSERT INTO sessions (id, version, lock_run_id, created_at, updated_at) VALUES ($1, 0, NULL, $2, $2)
       ON CONFLICT (id) DO NOTHING`,
      [sessionId, now],
    );
    const row = (await this.#row(c, sessionId, true)) as SessionRow;
    if (row.lock_run_id !== null && row.lock_run_id !== runId)
      await this.#refuseIfHeld(c, sessionId, row.lock_run_id);
    await c.query("UPDATE sessions SET lock_run_id = $2 WHERE id = $1", [sessionId, runId]);
    return { sessionId, messages: await this.#messages(c, sessionId), version: row.version };
  }

  async unlock(c: PgClient, sessionId: string, runId: string): Promise<void> {
    await c.query("UPDATE sessions SET lock_run_id = NULL WHERE id = $1 AND lock_run_id = $2", [
      sessionId,
      runId,
    ]);
  }

  /** Refuses a run that does not hold the session (a new run must lock it first). */
  async requireLock(c: PgClient, sessionId: string, runId: string): Promise<void> {
    const row = await this.#row(c, sessionId, true);
    if (row?.lock_run_id !== runId) {
      throw new StoreError(
        "session_not_locked",
        this.#location,
        `Run ${runId} must lock session ${JSON.stringify(sessionId)} in ${this.#location} before it starts`,
      );
    }
  }

  /** Saves a finished run's new messages and frees the session, if the run still holds it. */
  async save(c: PgClient, link: RunSessionLink, runId: string, messages: readonly Message[]): Promise<void> {
    const row = await this.#row(c, link.sessionId, true);
    if (!row || row.lock_run_id !== runId || row.version !== link.version) {
      throw new StoreError(
        "session_conflict",
        this.#location,
        `Session ${JSON.stringify(link.sessionId)} in ${this.#location} changed while run ${runId} was using it ` +
          "(it was deleted, forked over, or unlocked); the run's transcript is in the error and in the run record",
      );
    }
    await appendMessages(
      c,
      link.sessionId,
      messages,
      link.offset + link.base,
      "session_messages",
      link.offset,
    );
    await c.query(
      "UPDATE sessions SET version = version + 1, lock_run_id = NULL, updated_at = $2 WHERE id = $1",
      [link.sessionId, Date.now()],
    );
  }

  async list(c: PgClient): Promise<SessionInfo[]> {
    const rows = await c.query<SessionRow & { message_count: number }>(
      `SELECT s.*, (SELECT count(*) FROM session_messages m WHERE m.session_id = s.id)::int AS message_count
       FROM sessions s ORDER BY s.updated_at DESC, s.id`,
    );
    const out: SessionInfo[] = [];
    for (const r of rows.rows) {
      const held = r.lock_run_id !== null && (await this.#runs.holder(c, r.lock_run_id)).state !== "gone";
      out.push({
        sessionId: r.id,
        messageCount: r.message_count,
        ...(held && r.lock_run_id !== null && { lockedBy: r.lock_run_id }),
        createdAt: r.created_at,
        updatedAt: r.updated_at,
      });
    }
    return out;
  }

  async read(c: PgClient, sessionId: string): Promise<Message[]> {
    if (!(await this.#row(c, sessionId, false))) throw new UnknownSessionError(this.#location, sessionId);
    return this.#messages(c, sessionId);
  }

  async fork(c: PgClient, from: string, to: string, count: number | undefined): Promise<void> {
    // A negative count would slice from the end and copy a different cut than was asked for.
    if (count !== undefined && !(Number.isInteger(count) && count >= 0))
      throw new ConfigError(`forkSession: messages must be a whole number >= 0, got ${String(count)}`);
    checkSessionId(to);
    const messages = await this.read(c, from);
    const kept = messages.slice(0, count ?? messages.length);
    const open = openToolCalls(kept);
    if (open.length > 0) {
      throw new ConfigError(
        `Forking session ${JSON.stringify(from)} at ${kept.length} messages would separate tool call ${open[0]?.id} from its result; pick another cut`,
      );
    }
    const now = Date.now();
    const inserted = await c.query(
      `INSERT INTO sessions (id, version, lock_run_id, created_at, updated_at) VALUES ($1, 0, NULL, $2, $2)
       ON CONFLICT (id) DO NOTHING`,
      [to, now],
    );
    if (inserted.rowCount !== 1) {
      throw new StoreError(
        "session_exists",
        this.#location,
        `Session ${JSON.stringify(to)} already exists in ${this.#location}`,
      );
    }
    await appendMessages(c, to, kept, 0, "session_messages");
  }

  async delete(c: PgClient, sessionId: string): Promise<void> {
    const row = await this.#row(c, sessionId, true);
    if (!row) throw new UnknownSessionError(this.#location, sessionId);
    if (row.lock_run_id !== null) await this.#refuseIfHeld(c, sessionId, row.lock_run_id);
    await c.query("DELETE FROM sessions WHERE id = $1", [sessionId]);
  }

  async #row(c: PgClient, sessionId: string, lock: boolean): Promise<SessionRow | undefined> {
    const found = await c.query<SessionRow>(
      `SELECT * FROM sessions WHERE id = $1${lock ? " FOR UPDATE" : ""}`,
      [sessionId],
    );
    return found.rows[0];
  }

  async #messages(c: PgClient, sessionId: string): Promise<Message[]> {
    const rows = await c.query<{ message: Message }>(
      "SELECT message FROM session_messages WHERE session_id = $1 ORDER BY seq",
      [sessionId],
    );
    return rows.rows.map((r) => r.message);
  }

  async #refuseIfHeld(c: PgClient, sessionId: string, holder: string): Promise<void> {
    const { state, pid } = await this.#runs.holder(c, holder);
    if (state === "gone") return;
    throw new SessionBusyError(this.#location, sessionId, holder, state, pid);
  }
}

function checkSessionId(sessionId: string): void {
  if (typeof sessionId !== "string" || sessionId.length === 0 || sessionId.length > 200) {
    throw new ConfigError(`Invalid session id ${JSON.stringify(sessionId)}: use 1-200 characters`);
  }
}
