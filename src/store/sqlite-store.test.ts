import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import {
  DatabaseCorruptError,
  DatabaseLockedError,
  type Message,
  RunBusyError,
  RunNotResumableError,
  SchemaTooNewError,
  SessionBusyError,
  SqliteStore,
  UnknownRunError,
  UnknownSessionError,
} from "glassloop";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyUsage } from "../agent/usage.js";
import { MIGRATIONS, migrate } from "./migrations.js";
import { currentOwner } from "./owner.js";

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
const answer = (content: string): Message => ({ role: "assistant", content });

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

describe("SqliteStore runs", () => {
  it("creates the file and its directory, appends checkpoints and reads the run back", async () => {
    const store = open();
    await store.createRun(newRun("r1", [user("hi")]));
    const usage = emptyUsage(false);
    usage.steps.push({
      step: 1,
      inputTokens: 3,
      outputTokens: 2,
      cachedInputTokens: 0,
      toolCalls: 0,
      durationMs: 1,
    });
    usage.requests = 1;
    const messages = [user("hi"), answer("hello")];
    await store.checkpoint("r1", {
      persisted: 1,
      messages,
      usage,
      progress: { pending: [] },
      status: "running",
    });
    await store.finishRun("r1", { persisted: 2, messages, usage, status: "ok", output: "hello" });
    const run = await open().loadRun("r1");
    expect(run.messages).toEqual(messages);
    expect(run.usage.steps).toHaveLength(1);
    expect(run.usage.requests).toBe(1);
    expect(run).toMatchObject({ status: "ok", output: "hello" });
  });

  it("stores a turn's calls one row each: a checkpoint of changes rewrites only those, in place", async () => {
    const store = open();
    await store.createRun(newRun("r1", [user("hi")]));
    const call = (id: string) => ({ id, name: "t", arguments: "{}" });
    const base = {
      persisted: 1,
      messages: [user("hi")],
      usage: emptyUsage(false),
      status: "running" as const,
    };
    const queued = ["a", "b", "c"].map((id) => ({ call: call(id), state: "queued" as const }));
    await store.checkpoint("r1", { ...base, progress: { pending: queued, guard: ["g1"] } });
    const done = {
      call: call("b"),
      state: "done" as const,
      outcome: { status: "ok" as const, content: "2" },
    };
    await store.checkpoint("r1", { ...base, progress: { pending: [done] }, progressMode: "calls" });
    let run = await store.loadRun("r1");
    expect(run.progress).toEqual({ pending: [queued[0], done, queued[2]], guard: ["g1"] });
    // A full progress replaces the list (a new turn); a changed guard is written with the changes.
    await store.checkpoint("r1", {
      ...base,
      progress: { pending: [], guard: ["g2"] },
      progressMode: "calls-and-rest",
    });
    await store.checkpoint("r1", { ...base, progress: { pending: [queued[2]!], guard: ["g2"] } });
    run = await store.loadRun("r1");
    expect(run.progress).toEqual({ pending: [queued[2]], guard: ["g2"] });
  });

  it("reads the pending calls an older database kept inside the run row", async () => {
    const store = open();
    await store.createRun(newRun("r1", [user("hi")]));
    const legacy = { pending: [{ call: { id: "x", name: "t", arguments: "{}" }, state: "started" }] };
    const raw = new Database(file);
    raw.prepare("UPDATE runs SET progress = ? WHERE id = 'r1'").run(JSON.stringify(legacy));
    raw.close();
    expect((await store.loadRun("r1")).progress).toEqual(legacy);
  });

  it("refuses a checkpoint that does not continue the stored transcript", async () => {
    const store = open();
    await store.createRun(newRun("r1", [user("hi")]));
    const cp = {
      persisted: 0,
      messages: [user("hi")],
      usage: emptyUsage(false),
      progress: { pending: [] },
      status: "running" as const,
    };
    await expect(store.checkpoint("r1", cp)).rejects.toMatchObject({ code: "checkpoint_mismatch" });
  });

  it("names the file for an unknown run and refuses to resume a finished one", async () => {
    const store = open();
    await expect(store.loadRun("nope")).rejects.toBeInstanceOf(UnknownRunError);
    await expect(store.loadRun("nope")).rejects.toThrow(file);
    await store.createRun(newRun("r1", [user("hi")]));
    await store.finishRun("r1", {
      persisted: 1,
      messages: [user("hi")],
      usage: emptyUsage(false),
      status: "failed",
    });
    const claim = store.claimRun("r1", currentOwner());
    await expect(claim).rejects.toBeInstanceOf(RunNotResumableError);
    await expect(store.claimRun("r1", currentOwner())).rejects.toThrow(/already ended \(failed\)/);
  });
});

describe("SqliteStore sessions", () => {
  it("locks, saves atomically with the run, forks and deletes", async () => {
    const store = open();
    const snap = await store.lockSession("alice", "r1");
    expect(snap).toMatchObject({ messages: [], version: 0 });
    await store.createRun(newRun("r1", [user("one")], { sessionId: "alice", base: 0, version: 0 }));
    const messages = [user("one"), answer("1")];
    await store.finishRun("r1", { persisted: 1, messages, usage: emptyUsage(false), status: "ok" });
    expect(await store.readSession("alice")).toEqual(messages);
    const [info] = await store.listSessions();
    expect(info).toMatchObject({ sessionId: "alice", messageCount: 2 });
    expect(info?.lockedBy).toBeUndefined();

    await store.forkSession("alice", "bob", { messages: 1 });
    expect(await store.readSession("bob")).toEqual([user("one")]);
    await store.deleteSession("alice");
    await expect(store.readSession("alice")).rejects.toBeInstanceOf(UnknownSessionError);
    expect((await store.listSessions()).map((s) => s.sessionId)).toEqual(["bob"]);
  });

  it("refuses a second run while a live run holds the session", async () => {
    const store = open();
    await store.lockSession("alice", "r1");
    await store.createRun(newRun("r1", [user("one")], { sessionId: "alice", base: 0, version: 0 }));
    const { markActive } = await import("./owner.js");
    const done = markActive("r1");
    try {
      const second = store.lockSession("alice", "r2");
      await expect(second).rejects.toBeInstanceOf(SessionBusyError);
      await expect(store.lockSession("alice", "r2")).rejects.toMatchObject({
        holderState: "live",
        holderRunId: "r1",
      });
    } finally {
      done();
    }
    // The holder is no longer driven by anyone: the session reports an interrupted run.
    await expect(store.lockSession("alice", "r2")).rejects.toMatchObject({ holderState: "interrupted" });
    await store.discardRun("r1");
    await expect(store.lockSession("alice", "r2")).resolves.toMatchObject({ version: 0 });
  });

  it("refuses a fork that would separate a tool call from its result", async () => {
    const store = open();
    await store.lockSession("s", "r1");
    const messages: Message[] = [
      user("go"),
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "t", arguments: "{}" }] },
      { role: "tool", toolCallId: "c1", toolName: "t", content: "ok" },
    ];
    await store.createRun(newRun("r1", [user("go")], { sessionId: "s", base: 0, version: 0 }));
    await store.finishRun("r1", { persisted: 1, messages, usage: emptyUsage(false), status: "ok" });
    await expect(store.forkSession("s", "t", { messages: 2 })).rejects.toThrow(/separate tool call c1/);
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

describe("SqliteStore notes", () => {
  it("finds the right note in the top 3 with full-text search, within its scope only", async () => {
    const store = open();
    const corpus = [
      "Alice prefers window seats on long flights",
      "The quarterly report is due on the first Monday of April",
      "Alice is allergic to peanuts; never book restaurants with peanut dishes",
      "Bob's favourite programming language is OCaml",
      "The office wifi password rotates every month",
      "Deploys to production happen on Tuesdays and Thursdays",
      "Alice's manager is Carol, who approves travel",
      "The staging database is refreshed nightly from production",
    ];
    for (const text of corpus) await store.addNote({ scope: "user:alice", text });
    await store.addNote({ scope: "user:bob", text: "Bob is allergic to cats" });
    const hits = await store.searchNotes("user:alice", "Which foods is she allergic to?", 3);
    expect(hits.slice(0, 3).map((h) => h.text)).toContain(corpus[2]);
    expect(hits.every((h) => h.scope === "user:alice")).toBe(true);
    const deploy = await store.searchNotes("user:alice", "when do we deploy", 3);
    expect(deploy[0]?.text).toBe(corpus[5]);
    expect(await store.searchNotes("user:alice", "   ", 3)).toEqual([]);
    // A query of function words only still searches them rather than finding nothing.
    expect((await store.searchNotes("user:alice", "the", 3)).map((h) => h.text)).toContain(corpus[1]);
  });

  it("ranks by cosine similarity among notes of the same embedding model", async () => {
    const store = open();
    const v = (...xs: number[]) => new Float32Array(xs);
    await store.addNote({ scope: "s", text: "x axis", embedding: v(1, 0, 0), embeddingModel: "m" });
    await store.addNote({ scope: "s", text: "y axis", embedding: v(0, 2, 0), embeddingModel: "m" });
    await store.addNote({ scope: "s", text: "other model", embedding: v(1, 0, 0), embeddingModel: "m2" });
    const hits = await store.nearestNotes("s", v(0.1, 1, 0), 5, "m");
    expect(hits.map((h) => h.text)).toEqual(["y axis", "x axis"]);
    expect(hits[0]?.score).toBeCloseTo(0.995, 2);
  });

  it("keeps vector search current across its own writes and another process's", async () => {
    const store = open();
    const other = open();
    const v = (...xs: number[]) => new Float32Array(xs);
    const near = async (s: SqliteStore) => (await s.nearestNotes("s", v(0, 0, 1), 1, "m"))[0]?.text;
    await store.addNote({ scope: "s", text: "x", embedding: v(1, 0, 0), embeddingModel: "m" });
    expect(await near(store)).toBe("x");
    const own = await store.addNote({
      scope: "s",
      text: "z mine",
      embedding: v(0, 0, 1),
      embeddingModel: "m",
    });
    expect(await near(store)).toBe("z mine");
    await store.deleteNote("s", own.id);
    expect(await near(store)).toBe("x");
    await other.addNote({ scope: "s", text: "z theirs", embedding: v(0, 0.1, 1), embeddingModel: "m" });
    expect(await near(store)).toBe("z theirs");
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

  it("claims a run with a compare-and-set: a claim that read an older state loses with RunBusyError", async () => {
    const store = open();
    await store.createRun({
      ...newRun("r1", [user("hi")]),
      owner: { pid: 2_147_483_000, host: currentOwner().host },
    });
    const read = await store.loadRun("r1");
    const other = { pid: 2_147_483_001, host: currentOwner().host };
    await store.claimRun("r1", other, { status: read.status, updatedAt: read.updatedAt - 1 }).then(
      () => expect.unreachable("a stale claim must lose"),
      (error: unknown) => expect(error).toBeInstanceOf(RunBusyError),
    );
    const claimed = await store.claimRun("r1", currentOwner(), {
      status: read.status,
      updatedAt: read.updatedAt,
    });
    expect(claimed.owner).toEqual(currentOwner());
    expect(claimed.status).toBe("running");
  });
});
