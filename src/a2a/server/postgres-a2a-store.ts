/**
 * What the A2A server keeps beside a serve log on Postgres, in the log's schema and over its
 * pool: each task's history, and the push-notification configs with where each task's
 * notifications stand (the same rules as `SqliteA2AStore`). Its tables are versioned on their own
 * (`a2a_schema_version`); several server processes may share them.
 */
import type { PgClient } from "../../store/postgres/pg-driver.js";
import { migratePg, type PgMigration } from "../../store/postgres/pg-migrations.js";
import { type PgTarget, pgTransaction } from "../../store/postgres/pg-pool.js";
import type { Message } from "../wire.js";
import type { A2APushStore, PushConfig, PushProgress } from "./push-store.js";
import { type A2ATaskHistory, HISTORY_CAP, keptMessage } from "./task-history.js";

/** The A2A tables' schema history. Never edit a shipped migration: append one. */
const A2A_PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    description: "task histories, push configs and where each task's notifications stand",
    sql: `
      CREATE TABLE a2a_task_messages (
        task_id text NOT NULL,
        seq integer NOT NULL,
        message_id text NOT NULL,
        -- JSON text: JSON.stringify escapes every control character, so no NUL reaches text.
        message text NOT NULL,
        PRIMARY KEY (task_id, seq),
        UNIQUE (task_id, message_id)
      );
      CREATE TABLE a2a_push_configs (
        principal text NOT NULL,
        task_id text NOT NULL,
        config_id text NOT NULL,
        ord bigserial NOT NULL,
        config text NOT NULL,
        PRIMARY KEY (principal, task_id, config_id)
      );
      CREATE INDEX a2a_push_configs_principal ON a2a_push_configs (principal);
      CREATE TABLE a2a_push_progress (
        task_id text PRIMARY KEY,
        principal text NOT NULL,
        seq integer NOT NULL,
        state text,
        done boolean NOT NULL DEFAULT false
      );`,
  },
  {
    version: 2,
    description: "the server following a task's notifications, and until when",
    sql: `ALTER TABLE a2a_push_progress ADD COLUMN follower text, ADD COLUMN lease_until bigint;`,
  },
];

/** Task histories and push configs on Postgres, over a serve log's pool (`PostgresServeLog.pg`). */
export class PostgresA2AStore implements A2ATaskHistory, A2APushStore {
  readonly #target: PgTarget;
  readonly #ready: Promise<void>;

  constructor(target: PgTarget) {
    this.#target = target;
    this.#ready = (async () => {
      const client = await target.pool.connect();
      try {
        await migratePg(client, target.schema, target.location, A2A_PG_MIGRATIONS, "a2a_schema_version");
      } finally {
        client.release();
      }
    })();
    // Awaited by every method; a store never used must not leave an unhandled rejection behind.
    this.#ready.catch(() => {});
  }

  async #tx<T>(work: (client: PgClient) => Promise<T>, kind: "read" | "write" | "single"): Promise<T> {
    await this.#ready;
    return pgTransaction(this.#target, work, kind);
  }

  async add(taskId: string, message: Message): Promise<void> {
    const kept = keptMessage(message);
    await this.#tx(async (c) => {
      // One writer per task at a time, so two messages never take the same place.
      await c.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`glassloop:a2a:history:${taskId}`]);
      const added = await c.query(
        `INSERT INTO a2a_task_messages (task_id, seq, message_id, message)
           SELECT $1, COALESCE(MAX(seq), -1) + 1, $2, $3 FROM a2a_task_messages WHERE task_id = $1
         ON CONFLICT DO NOTHING`,
        [taskId, kept.messageId, JSON.stringify(kept)],
      );
      if (added.rowCount === 0) return;
      // Past the cap, the oldest message after the first goes.
      await c.query(
        `DELETE FROM a2a_task_messages WHERE task_id = $1 AND seq = (
           SELECT seq FROM a2a_task_messages WHERE task_id = $1 ORDER BY seq LIMIT 1 OFFSET 1)
         AND (SELECT count(*) FROM a2a_task_messages WHERE task_id = $1) > $2`,
        [taskId, HISTORY_CAP],
      );
    }, "write");
  }

  async messages(taskId: string): Promise<Message[]> {
    const { rows } = await this.#tx(
      (c) =>
        c.query<{ message: string }>(
          "SELECT message FROM a2a_task_messages WHERE task_id = $1 ORDER BY seq",
          [taskId],
        ),
      "single",
    );
    return rows.map((r) => JSON.parse(r.message) as Message);
  }

  async put(principal: string, config: PushConfig): Promise<void> {
    await this.#tx(
      (c) =>
        c.query(
          `INSERT INTO a2a_push_configs (principal, task_id, config_id, config) VALUES ($1, $2, $3, $4)
             ON CONFLICT (principal, task_id, config_id) DO UPDATE SET config = excluded.config`,
          [principal, config.taskId, config.id, JSON.stringify(config)],
        ),
      "single",
    );
  }

  async get(principal: string, taskId: string, id: string): Promise<PushConfig | undefined> {
    const { rows } = await this.#tx(
      (c) =>
        c.query<{ config: string }>(
          "SELECT config FROM a2a_push_configs WHERE principal = $1 AND task_id = $2 AND config_id = $3",
          [principal, taskId, id],
        ),
      "single",
    );
    return rows[0] && (JSON.parse(rows[0].config) as PushConfig);
  }

  async list(principal: string, taskId: string): Promise<PushConfig[]> {
    const { rows } = await this.#tx(
      (c) =>
        c.query<{ config: string }>(
          "SELECT config FROM a2a_push_configs WHERE principal = $1 AND task_id = $2 ORDER BY ord",
          [principal, taskId],
        ),
      "single",
    );
    return rows.map((r) => JSON.parse(r.config) as PushConfig);
  }

  async delete(principal: string, taskId: string, id: string): Promise<boolean> {
    const result = await this.#tx(
      (c) =>
        c.query("DELETE FROM a2a_push_configs WHERE principal = $1 AND task_id = $2 AND config_id = $3", [
          principal,
          taskId,
          id,
        ]),
      "single",
    );
    return (result.rowCount ?? 0) > 0;
  }

  async count(principal: string): Promise<number> {
    const { rows } = await this.#tx(
      (c) =>
        c.query<{ n: string | number }>("SELECT count(*) AS n FROM a2a_push_configs WHERE principal = $1", [
          principal,
        ]),
      "single",
    );
    return Number(rows[0]?.n ?? 0);
  }

  async pending(now: number): Promise<PushProgress[]> {
    const { rows } = await this.#tx(
      (c) =>
        c.query<{ principal: string; task_id: string; seq: number | null; state: string | null }>(
          `SELECT c.principal, c.task_id, p.seq, p.state FROM
             (SELECT DISTINCT principal, task_id FROM a2a_push_configs) c
             LEFT JOIN a2a_push_progress p ON p.task_id = c.task_id
           WHERE NOT COALESCE(p.done, false) AND (p.lease_until IS NULL OR p.lease_until < $1)`,
          [now],
        ),
      "single",
    );
    return rows.map((r) => ({
      principal: r.principal,
      taskId: r.task_id,
      seq: r.seq ?? -1,
      ...(r.state !== null && { state: r.state }),
      done: false,
    }));
  }

  async setProgress(progress: PushProgress): Promise<void> {
    await this.#tx(
      (c) =>
        c.query(
          `INSERT INTO a2a_push_progress (task_id, principal, seq, state, done) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (task_id) DO UPDATE SET seq = excluded.seq, state = excluded.state, done = excluded.done`,
          [progress.taskId, progress.principal, progress.seq, progress.state ?? null, progress.done],
        ),
      "single",
    );
  }

  async claim(
    taskId: string,
    principal: string,
    follower: string,
    until: number,
    now: number,
  ): Promise<PushProgress | undefined> {
    const { rows } = await this.#tx(
      (c) =>
        c.query<{ principal: string; seq: number; state: string | null; done: boolean }>(
          `INSERT INTO a2a_push_progress (task_id, principal, seq, done, follower, lease_until)
             VALUES ($1, $2, -1, false, $3, $4)
           ON CONFLICT (task_id) DO UPDATE SET follower = excluded.follower, lease_until = excluded.lease_until
             WHERE a2a_push_progress.follower IS NULL OR a2a_push_progress.follower = excluded.follower
                OR a2a_push_progress.lease_until IS NULL OR a2a_push_progress.lease_until < $5
           RETURNING principal, seq, state, done`,
          [taskId, principal, follower, until, now],
        ),
      "single",
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      principal: row.principal,
      taskId,
      seq: row.seq,
      ...(row.state !== null && { state: row.state }),
      done: row.done,
    };
  }

  async release(taskId: string, follower: string): Promise<void> {
    await this.#tx(
      (c) =>
        c.query("UPDATE a2a_push_progress SET lease_until = 0 WHERE task_id = $1 AND follower = $2", [
          taskId,
          follower,
        ]),
      "single",
    );
  }

  /** Nothing to close: the pool is the serve log's, and closes with it. */
  close(): void {}
}
