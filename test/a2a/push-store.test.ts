/**
 * The push-config stores a server keeps beside its serve log (SQLite file, Postgres schema) hold
 * the same contract: configs per caller and task (replace by id, list in order, delete, count per
 * caller), and where each task's notifications stand, so a restarted server follows exactly the
 * tasks whose notifications have not reached their end.
 */
import { describe, expect, it } from "vitest";
import { PostgresA2AStore } from "../../src/a2a/server/postgres-a2a-store.js";
import type { A2APushStore, PushConfig } from "../../src/a2a/server/push-store.js";
import { SqliteA2AStore } from "../../src/a2a/server/sqlite-a2a-store.js";
import { PostgresServeLog } from "../../src/serve/postgres-serve-log.js";
import { freshSchema, POSTGRES_SKIP, postgresUrl } from "../helpers/postgres.js";

type Durable = A2APushStore &
  Required<Pick<A2APushStore, "pending" | "setProgress" | "claim" | "release">> & { close(): void };

const stores: [string, string | undefined, () => Promise<Durable>][] = [
  ["SqliteA2AStore", undefined, async () => new SqliteA2AStore(":memory:")],
  [
    "PostgresA2AStore",
    POSTGRES_SKIP,
    async () => {
      const log = await PostgresServeLog.connect({ url: await postgresUrl(), schema: freshSchema() });
      return Object.assign(new PostgresA2AStore(log.pg), { close: () => void log.close() });
    },
  ],
];

const config = (taskId: string, id: string, url = `https://hooks.example.com/${id}`): PushConfig => ({
  id,
  taskId,
  url,
  token: `token-${id}`,
  authentication: { scheme: "Bearer", credentials: "c" },
  version: "1.0",
});

describe.each(stores)("%s", (_name, skip, make) => {
  it.skipIf(skip !== undefined)(
    "keeps configs per caller and task, replaced by id, counted per caller",
    async () => {
      const store = await make();
      await store.put("alice", config("t1", "a"));
      await store.put("alice", config("t1", "b"));
      await store.put("alice", config("t1", "a", "https://hooks.example.com/replaced"));
      await store.put("alice", config("t2", "c"));
      await store.put("bob", config("t1", "a"));
      expect((await store.list("alice", "t1")).map((c) => [c.id, c.url])).toEqual([
        ["a", "https://hooks.example.com/replaced"],
        ["b", "https://hooks.example.com/b"],
      ]);
      expect(await store.get("alice", "t1", "b")).toEqual(config("t1", "b"));
      expect(await store.get("alice", "t9", "b")).toBeUndefined();
      expect(await store.count("alice")).toBe(3);
      expect(await store.count("bob")).toBe(1);
      expect(await store.delete("alice", "t1", "b")).toBe(true);
      expect(await store.delete("alice", "t1", "b")).toBe(false);
      expect(await store.count("alice")).toBe(2);
      store.close();
    },
  );

  it.skipIf(skip !== undefined)(
    "says which tasks' notifications are unfinished, and from where",
    async () => {
      const store = await make();
      await store.put("alice", config("t1", "a"));
      await store.put("alice", config("t2", "b"));
      await store.put("bob", config("t3", "c"));
      await store.setProgress({
        principal: "alice",
        taskId: "t1",
        seq: 7,
        state: "TASK_STATE_WORKING",
        done: false,
      });
      await store.setProgress({
        principal: "alice",
        taskId: "t2",
        seq: 12,
        state: "TASK_STATE_COMPLETED",
        done: true,
      });
      const pending = (await store.pending(Date.now())).sort((x, y) => x.taskId.localeCompare(y.taskId));
      expect(pending).toEqual([
        { principal: "alice", taskId: "t1", seq: 7, state: "TASK_STATE_WORKING", done: false },
        // Nothing sent yet: from the start.
        { principal: "bob", taskId: "t3", seq: -1, done: false },
      ]);
      // A task whose configs were all deleted is not followed.
      await store.delete("alice", "t1", "a");
      expect((await store.pending(Date.now())).map((p) => p.taskId)).toEqual(["t3"]);
      store.close();
    },
  );

  it.skipIf(skip !== undefined)(
    "lets one follower at a time hold a task, until its lease runs out or it lets go",
    async () => {
      const store = await make();
      await store.put("alice", config("t1", "a"));
      await store.setProgress({
        principal: "alice",
        taskId: "t1",
        seq: 4,
        state: "TASK_STATE_WORKING",
        done: false,
      });
      const held = await store.claim("t1", "alice", "server-a", 1_000, 0);
      expect(held).toEqual({
        principal: "alice",
        taskId: "t1",
        seq: 4,
        state: "TASK_STATE_WORKING",
        done: false,
      });
      expect(await store.claim("t1", "alice", "server-b", 2_000, 500)).toBeUndefined();
      // The holder renews; a held task is not pending.
      expect(await store.claim("t1", "alice", "server-a", 3_000, 900)).toBeDefined();
      expect(await store.pending(1_000)).toEqual([]);
      // Past the lease, another takes it from where it stood.
      expect((await store.claim("t1", "alice", "server-b", 9_000, 3_001))?.seq).toBe(4);
      await store.release("t1", "server-a");
      expect(await store.claim("t1", "alice", "server-a", 9_500, 3_002)).toBeUndefined();
      await store.release("t1", "server-b");
      expect((await store.pending(3_003)).map((p) => p.taskId)).toEqual(["t1"]);
      expect(await store.claim("t1", "alice", "server-a", 9_500, 3_004)).toBeDefined();
      store.close();
    },
  );
});
