import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { Message } from "glassloop";
import { DatabaseCorruptError, DatabaseLockedError, SchemaTooNewError, SqliteStore } from "glassloop/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyUsage } from "../../loop/usage.js";
import { currentOwner } from "../owner.js";
import { MIGRATIONS, migrate } from "./migrations.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;

let dir: string;
let file: string;
const stores: SqliteStore[] = [];
function open(options: { busyTimeoutMs?: number } = {}): SqliteStore {
  const store = new SqliteStore({ path: file, ...options });
  stores.push(store);
  return store;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "glassloop-store-"));
  file = join(dir, "nested", "test.db");
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

const user = (content: string): Message => ({ role: "user", content });

function newRun(
  runId: string,
  messages: Message[],
  session?: { sessionId: string; base: number; version: number },
) {
  return {
    runId,
    agent: "a",
    model: "scripted:test",
    input: "hi",
    owner: currentOwner(),
    messages,
    usage: emptyUsage(false),
    progress: { pending: [] },
    ...(session && { session: { ...session, offset: 0 } }),
  };
}

describe("SqliteStore runs (the shared Store contract is in store-contract.test.ts)", () => {
  it("reads the pending calls an older database kept inside the run row", async () => {
    const store = open();
    await store.createRun(newRun("r1", [user("hi")]));
    const legacy = { pending: [{ call: { id: "x", name: "t", arguments: "{}" }, state: "started" }] };
    const raw = new Database(file);
    raw.prepare("UPDATE runs SET progress = ? WHERE id = 'r1'").run(JSON.stringify(legacy));
    raw.close();
    expect((await store.loadRun("r1")).progress).toEqual(legacy);
  });
});

describe("SqliteStore database errors name the file", () => {
  it("reports a corrupt file", () => {
    writeFileSync(join(dir, "bad.db"), "this is not a database, just text ".repeat(200));
    const bad = join(dir, "bad.db");
    const before = readFileSync(bad);
    expect(() => new SqliteStore({ path: bad })).toThrow(DatabaseCorruptError);
    expect(() => new SqliteStore({ path: bad })).toThrow(bad);
    expect(readFileSync(bad).equals(before)).toBe(true);
  });

  it("reports a schema newer than the code", () => {
    open().close();
    const raw = new Database(file);
    raw.pragma("user_version = 999");
    raw.close();
    expect(() => open()).toThrow(SchemaTooNewError);
    expect(() => open()).toThrow(new RegExp(`${escapeRegExp(file)} has schema version 999`));
  });

  it("reports a database locked by another process past the busy timeout", async () => {
    const store = open({ busyTimeoutMs: 50 });
    const other = new Database(file);
    other.prepare("BEGIN IMMEDIATE").run();
    try {
      const write = store.lockSession("alice", "r1");
      await expect(write).rejects.toBeInstanceOf(DatabaseLockedError);
      await expect(store.lockSession("alice", "r1")).rejects.toThrow(file);
    } finally {
      other.prepare("ROLLBACK").run();
      other.close();
    }
    await expect(store.lockSession("alice", "r1")).resolves.toMatchObject({ version: 0 });
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("SqliteStore schema version 2 (the tools a run started with)", () => {
  it("opens a version-1 database, keeps its runs readable (no tool record) and records tools for new runs", async () => {
    mkdirSync(dirname(file), { recursive: true });
    const old = new Database(file);
    migrate(old, file, MIGRATIONS.slice(0, 1));
    old
      .prepare(
        `INSERT INTO runs (id, agent, model, input, status, owner_pid, owner_host, usage, progress, created_at, updated_at)
         VALUES ('old', 'a', 'm', 'hi', 'awaiting_approval', 1, 'h', ?, '{"pending":[]}', 1, 1)`,
      )
      .run(JSON.stringify({ ...emptyUsage(false), steps: undefined }));
    old.close();

    const store = open();
    const loaded = await store.loadRun("old");
    expect(loaded.status).toBe("awaiting_approval");
    expect(loaded.tools).toBeUndefined();
    await store.createRun({
      ...newRun("new", [user("hi")]),
      tools: { names: ["calculator"], setup: { x: 1 } },
    });
    expect((await store.loadRun("new")).tools).toEqual({ names: ["calculator"], setup: { x: 1 } });
    const raw = new Database(file);
    expect(raw.pragma("user_version", { simple: true })).toBe(MIGRATIONS.at(-1)?.version);
    raw.close();
  });
});
