import type Database from "better-sqlite3";
import { ConfigError } from "../../core/errors.js";
import type { Message } from "../../core/vocabulary/messages.js";
import { openToolCalls } from "../../memory/transcript.js";
import { SessionBusyError, StoreError, UnknownSessionError } from "../errors.js";
import type { RunSessionLink, SessionInfo, SessionSnapshot } from "../store.js";
import { parseStored } from "./sqlite-open.js";
import type { SqliteRuns } from "./sqlite-runs.js";

interface SessionRow {
  id: string;
  version: number;
  lock_run_id: string | null;
  created_at: number;
  updated_at: number;
}

/** The sessions tables: one row per conversation, its messages appended row by row. */
export class SqliteSessions {
  readonly #db: Database.Database;
  readonly #file: string;
  readonly #runs: SqliteRuns;
  readonly #row: Database.Statement;
  readonly #insertMessage: Database.Statement;

  constructor(db: Database.Database, file: string, runs: SqliteRuns) {
    this.#db = db;
    this.#file = file;
    this.#runs = runs;
    this.#row = db.prepare("SELECT * FROM sessions WHERE id = ?");
    this.#insertMessage = db.prepare(
      "INSERT INTO session_messages (session_id, seq, message) VALUES (?, ?, ?)",
    );
  }

  lock(sessionId: string, runId: string): SessionSnapshot {
    checkSessionId(sessionId);
    let row = this.#row.get(sessionId) as SessionRow | undefined;
    if (!row) {
      const now = Date.now();
      this.#db
        .prepare(
          "INSERT INTO sessions (id, version, lock_run_id, created_at, updated_at) VALUES (?, 0, NULL, ?, ?)",
        )
        .run(sessionId, now, now);
      row = { id: sessionId, version: 0, lock_run_id: null, created_at: now, updated_at: now };
    }
    if (row.lock_run_id !== null && row.lock_run_id !== runId) this.#refuseIfHeld(sessionId, row.lock_run_id);
    this.#db.prepare("UPDATE sessions SET lock_run_id = ? WHERE id = ?").run(runId, sessionId);
    return { sessionId, messages: this.read(sessionId), version: row.version };
  }

  unlock(sessionId: string, runId: string): void {
    this.#db
      .prepare("UPDATE sessions SET lock_run_id = NULL WHERE id = ? AND lock_run_id = ?")
      .run(sessionId, runId);
  }

  /** Saves a finished run's new messages and frees the session, if the run still holds it. */
  save(link: RunSessionLink, runId: string, messages: readonly Message[]): void {
    const row = this.#row.get(link.sessionId) as SessionRow | undefined;
    if (!row || row.lock_run_id !== runId || row.version !== link.version) {
      throw new StoreError(
        "session_conflict",
        this.#file,
        `Session ${JSON.stringify(link.sessionId)} in ${this.#file} changed while run ${runId} was using it ` +
          "(it was deleted, forked over, or unlocked); the run's transcript is in the error and in the run record",
      );
    }
    for (let i = link.offset + link.base; i < messages.length; i++)
      this.#insertMessage.run(link.sessionId, i - link.offset, JSON.stringify(messages[i]));
    this.#db
      .prepare("UPDATE sessions SET version = version + 1, lock_run_id = NULL, updated_at = ? WHERE id = ?")
      .run(Date.now(), link.sessionId);
  }

  list(): SessionInfo[] {
    const rows = this.#db
      .prepare(
        `SELECT s.*, (SELECT count(*) FROM session_messages m WHERE m.session_id = s.id) AS message_count
         FROM sessions s ORDER BY s.updated_at DESC, s.id`,
      )
      .all() as (SessionRow & { message_count: number })[];
    return rows.map((r) => ({
      sessionId: r.id,
      messageCount: r.message_count,
      ...(r.lock_run_id !== null &&
        this.#runs.holderState(r.lock_run_id) !== "gone" && { lockedBy: r.lock_run_id }),
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }));
  }

  read(sessionId: string): Message[] {
    if (!this.#row.get(sessionId)) throw new UnknownSessionError(this.#file, sessionId);
    const rows = this.#db
      .prepare("SELECT message FROM session_messages WHERE session_id = ? ORDER BY seq")
      .pluck()
      .all(sessionId) as string[];
    return rows.map((text) => parseStored<Message>(text, this.#file, `a message of session ${sessionId}`));
  }

  fork(from: string, to: string, count: number | undefined): void {
    // A negative count would slice from the end and copy a different cut than was asked for.
    if (count !== undefined && !(Number.isInteger(count) && count >= 0))
      throw new ConfigError(`forkSession: messages must be a whole number >= 0, got ${String(count)}`);
    checkSessionId(to);
    const messages = this.read(from);
    if (this.#row.get(to)) {
      throw new StoreError(
        "session_exists",
        this.#file,
        `Session ${JSON.stringify(to)} already exists in ${this.#file}`,
      );
    }
    const kept = messages.slice(0, count ?? messages.length);
    const open = openToolCalls(kept);
    if (open.length > 0) {
      throw new ConfigError(
        `Forking session ${JSON.stringify(from)} at ${kept.length} messages would separate tool call ${open[0]?.id} from its result; pick another cut`,
      );
    }
    const now = Date.now();
    this.#db
      .prepare(
        "INSERT INTO sessions (id, version, lock_run_id, created_at, updated_at) VALUES (?, 0, NULL, ?, ?)",
      )
      .run(to, now, now);
    for (const [i, m] of kept.entries()) this.#insertMessage.run(to, i, JSON.stringify(m));
  }

  delete(sessionId: string): void {
    const row = this.#row.get(sessionId) as SessionRow | undefined;
    if (!row) throw new UnknownSessionError(this.#file, sessionId);
    if (row.lock_run_id !== null) this.#refuseIfHeld(sessionId, row.lock_run_id);
    this.#db.prepare("DELETE FROM sessions WHERE id = ?").run(sessionId);
  }

  #refuseIfHeld(sessionId: string, holder: string): void {
    const state = this.#runs.holderState(holder);
    if (state === "gone") return;
    throw new SessionBusyError(this.#file, sessionId, holder, state, this.#runs.ownerPid(holder));
  }
}

function checkSessionId(sessionId: string): void {
  if (typeof sessionId !== "string" || sessionId.length === 0 || sessionId.length > 200) {
    throw new ConfigError(`Invalid session id ${JSON.stringify(sessionId)}: use 1-200 characters`);
  }
}
