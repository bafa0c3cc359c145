import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { Agent, RunNotResumableError, UnknownRunError } from "glassloop";
import { DatabaseCorruptError, DatabaseLockedError, SchemaTooNewError, SqliteStore } from "glassloop/store";
import { ScriptedModel } from "glassloop/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/loop/usage.js";

const Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "glassloop-errors-"));
});
afterEach(() => {
  delete process.env.GLASSLOOP_DB;
  rmSync(dir, { recursive: true, force: true });
});

describe("store errors reach the caller clearly, naming the file", () => {
  it("an unknown run id", async () => {
    const file = join(dir, "a.db");
    const store = new SqliteStore({ path: file });
    const agent = new Agent({ model: new ScriptedModel([]), store });
    const resume = agent.resume("run_does_not_exist");
    await expect(resume).rejects.toBeInstanceOf(UnknownRunError);
    await expect(agent.resume("run_does_not_exist")).rejects.toThrow(
      `No run "run_does_not_exist" in ${file}`,
    );
    store.close();
  });

  it("a finished run cannot be resumed by mistake", async () => {
    const store = new SqliteStore({ path: join(dir, "a.db") });
    const agent = new Agent({ model: new ScriptedModel([{ text: "done" }]), store });
    const { runId } = await agent.run("hi");
    await expect(agent.resume(runId)).rejects.toBeInstanceOf(RunNotResumableError);
    await expect(agent.resume(runId)).rejects.toThrow(/already ended \(ok\)/);
    store.close();
  });

  it("two resumes of one crashed run in one process: one continues it, the other is refused", async () => {
    const store = new SqliteStore({ path: join(dir, "a.db") });
    // A run left by a process that no longer exists.
    await store.createRun({
      runId: "run_orphan",
      agent: "agent",
      model: "scripted:test",
      input: "hi",
      owner: { pid: 2_147_483_646, host: hostname() },
      messages: [{ role: "user", content: "hi" }],
      usage: emptyUsage(false),
      progress: { pending: [] },
    });
    const agent = new Agent({ model: new ScriptedModel([{ text: "resumed", delayMs: 20 }]), store });
    const [a, b] = await Promise.allSettled([agent.resume("run_orphan"), agent.resume("run_orphan")]);
    expect(a).toMatchObject({ status: "fulfilled", value: { output: "resumed" } });
    expect(b).toMatchObject({ status: "rejected", reason: expect.any(RunNotResumableError) });
    expect((await store.loadRun("run_orphan")).status).toBe("ok");
    store.close();
  });

  it("a corrupt database file at GLASSLOOP_DB, left untouched", async () => {
    const file = join(dir, "corrupt.db");
    writeFileSync(file, Buffer.alloc(8192, 0x5a));
    process.env.GLASSLOOP_DB = file;
    const agent = new Agent({ model: new ScriptedModel([{ text: "x" }]) });
    const run = agent.run("hi", { session: "alice" });
    await expect(run).rejects.toBeInstanceOf(DatabaseCorruptError);
    await expect(agent.run("hi", { session: "alice" })).rejects.toThrow(file);
  });

  it("a schema written by a newer glassloop", async () => {
    const file = join(dir, "new.db");
    new SqliteStore({ path: file }).close();
    const raw = new Database(file);
    raw.pragma("user_version = 42");
    raw.close();
    process.env.GLASSLOOP_DB = file;
    const agent = new Agent({ model: new ScriptedModel([]) });
    await expect(agent.resume("run_x")).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(agent.resume("run_x")).rejects.toThrow(`${file} has schema version 42`);
  });

  it("a database another process keeps locked: the run fails before calling the model", async () => {
    const file = join(dir, "locked.db");
    const store = new SqliteStore({ path: file, busyTimeoutMs: 50 });
    const other = new Database(file);
    other.prepare("BEGIN IMMEDIATE").run();
    const model = new ScriptedModel([{ text: "never" }]);
    const agent = new Agent({ model, store });
    try {
      const run = agent.run("hi", { session: "s" });
      await expect(run).rejects.toBeInstanceOf(DatabaseLockedError);
      await expect(agent.run("hi")).rejects.toThrow(`The database ${file} is locked`);
      expect(model.requests).toHaveLength(0);
    } finally {
      other.prepare("ROLLBACK").run();
      other.close();
    }
    await expect(agent.run("hi", { session: "s" })).resolves.toMatchObject({ output: "never" });
    store.close();
  });
});
