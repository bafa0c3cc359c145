/**
 * What the A2A server keeps beside a serve log in a SQLite file, in that same file: each task's
 * history, and the push-notification configs with where each task's notifications stand. Its own
 * connection and tables (`a2a_*`), so a restart finds both where the runs are.
 */
import { createRequire } from "node:module";
import type Database from "better-sqlite3";
import type { Message } from "../wire.js";
import type { A2APushStore, PushConfig, PushProgress } from "./push-store.js";
import { type A2ATaskHistory, HISTORY_CAP, keptMessage } from "./task-history.js";

const SCHEMA = `
create table if not exists a2a_task_messages (
  task_id text not null, seq integer not null, message_id text not null, message text not null,
  primary key (task_id, seq)
) without rowid;
create unique index if not exists a2a_task_messages_id on a2a_task_messages (task_id, message_id);
create table if not exists a2a_push_configs (
  principal text not null, task_id text not null, config_id text not null, config text not null,
  primary key (principal, task_id, config_id)
);
create index if not exists a2a_push_configs_principal on a2a_push_configs (principal);
create table if not exists a2a_push_progress (
  task_id text primary key, principal text not null, seq integer not null, state text,
  done integer not null default 0, follower text, lease_until integer
) without rowid;
`;

/** Task histories and push configs in a SQLite file (the serve log's, by default). */
export class SqliteA2AStore implements A2ATaskHistory, A2APushStore {
  readonly #db: Database.Database;

  constructor(path: string) {
    const Driver = createRequire(import.meta.url)("better-sqlite3") as typeof Database;
    this.#db = new Driver(path, { timeout: 5_000 });
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma("synchronous = NORMAL");
    this.#db.exec(SCHEMA);
    // Files written before followers held leases get the columns, empty.
    const columns = new Set(
      (this.#db.pragma("table_info(a2a_push_progress)") as { name: string }[]).map((c) => c.name),
    );
    for (const [name, type] of [
      ["follower", "text"],
      ["lease_until", "integer"],
    ] as const)
      if (!columns.has(name)) this.#db.exec(`alter table a2a_push_progress add column ${name} ${type}`);
  }

  async add(taskId: string, message: Message): Promise<void> {
    const kept = keptMessage(message);
    const insert = this.#db.transaction(() => {
      const added = this.#db
        .prepare(
          `insert or ignore into a2a_task_messages (task_id, seq, message_id, message)
             select ?, coalesce(max(seq), -1) + 1, ?, ? from a2a_task_messages where task_id = ?`,
        )
        .run(taskId, kept.messageId, JSON.stringify(kept), taskId);
      if (added.changes === 0) return;
      // Past the cap, the oldest message after the first goes.
      this.#db
        .prepare(
          `delete from a2a_task_messages where task_id = ? and seq = (
             select seq from a2a_task_messages where task_id = ? order by seq limit 1 offset 1)
           and (select count(*) from a2a_task_messages where task_id = ?) > ?`,
        )
        .run(taskId, taskId, taskId, HISTORY_CAP);
    });
    insert();
  }

  async messages(taskId: string): Promise<Message[]> {
    const rows = this.#db
      .prepare("select message from a2a_task_messages where task_id = ? order by seq")
      .all(taskId) as { message: string }[];
    return rows.map((r) => JSON.parse(r.message) as Message);
  }

  async put(principal: string, config: PushConfig): Promise<void> {
    this.#db
      .prepare(
        `insert into a2a_push_configs (principal, task_id, config_id, config) values (?, ?, ?, ?)
           on conflict (principal, task_id, config_id) do update set config = excluded.config`,
      )
      .run(principal, config.taskId, config.id, JSON.stringify(config));
  }

  async get(principal: string, taskId: string, id: string): Promise<PushConfig | undefined> {
    const row = this.#db
      .prepare("select config from a2a_push_configs where principal = ? and task_id = ? and config_id = ?")
      .get(principal, taskId, id) as { config: string } | undefined;
    return row && (JSON.parse(row.config) as PushConfig);
  }

  async list(principal: string, taskId: string): Promise<PushConfig[]> {
    const rows = this.#db
      .prepare("select config from a2a_push_configs where principal = ? and task_id = ? order by rowid")
      .all(principal, taskId) as { config: string }[];
    return rows.map((r) => JSON.parse(r.config) as PushConfig);
  }

  async delete(principal: string, taskId: string, id: string): Promise<boolean> {
    return (
      this.#db
        .prepare("delete from a2a_push_configs where principal = ? and task_id = ? and config_id = ?")
        .run(principal, taskId, id).changes > 0
    );
  }

  async count(principal: string): Promise<number> {
    const row = this.#db
      .prepare("select count(*) as n from a2a_push_configs where principal = ?")
      .get(principal) as { n: number };
    return row.n;
  }

  async pending(now: number): Promise<PushProgress[]> {
    const rows = this.#db
      .prepare(
        `select c.principal, c.task_id, p.seq, p.state from
           (select distinct principal, task_id from a2a_push_configs) c
           left join a2a_push_progress p on p.task_id = c.task_id
         where coalesce(p.done, 0) = 0 and (p.lease_until is null or p.lease_until < ?)`,
      )
      .all(now) as { principal: string; task_id: string; seq: number | null; state: string | null }[];
    return rows.map((r) => ({
      principal: r.principal,
      taskId: r.task_id,
      seq: r.seq ?? -1,
      ...(r.state !== null && { state: r.state }),
      done: false,
    }));
  }

  async setProgress(progress: PushProgress): Promise<void> {
    this.#db
      .prepare(
        `insert into a2a_push_progress (task_id, principal, seq, state, done) values (?, ?, ?, ?, ?)
           on conflict (task_id) do update set seq = excluded.seq, state = excluded.state, done = excluded.done`,
      )
      .run(progress.taskId, progress.principal, progress.seq, progress.state ?? null, progress.done ? 1 : 0);
  }

  async claim(
    taskId: string,
    principal: string,
    follower: string,
    until: number,
    now: number,
  ): Promise<PushProgress | undefined> {
    const claimed = this.#db
      .prepare(
        `insert into a2a_push_progress (task_id, principal, seq, done, follower, lease_until)
           values (?, ?, -1, 0, ?, ?)
         on conflict (task_id) do update set follower = excluded.follower, lease_until = excluded.lease_until
           where a2a_push_progress.follower is null or a2a_push_progress.follower = excluded.follower
              or a2a_push_progress.lease_until is null or a2a_push_progress.lease_until < ?`,
      )
      .run(taskId, principal, follower, until, now);
    if (claimed.changes === 0) return undefined;
    const row = this.#db
      .prepare("select principal, seq, state, done from a2a_push_progress where task_id = ?")
      .get(taskId) as { principal: string; seq: number; state: string | null; done: number };
    return {
      principal: row.principal,
      taskId,
      seq: row.seq,
      ...(row.state !== null && { state: row.state }),
      done: row.done === 1,
    };
  }

  async release(taskId: string, follower: string): Promise<void> {
    this.#db
      .prepare("update a2a_push_progress set lease_until = 0 where task_id = ? and follower = ?")
      .run(taskId, follower);
  }

  /** Closes the connection. */
  close(): void {
    this.#db.close();
  }
}
