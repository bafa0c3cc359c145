import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "glassloop";
import { defaultStore, SqliteStore } from "glassloop/store";
import { ScriptedModel } from "glassloop/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// An agent without `store` keeps sessions in the default SQLite file, as always; what changed is
// only when the SQLite modules load (on the first call, through import()).
let dir: string;
let file: string;
let before: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "glassloop-default-store-"));
  file = join(dir, "nested", "default.db");
  before = process.env.GLASSLOOP_DB;
  process.env.GLASSLOOP_DB = file;
});
afterEach(() => {
  defaultStore(file).close();
  if (before === undefined) delete process.env.GLASSLOOP_DB;
  else process.env.GLASSLOOP_DB = before;
  rmSync(dir, { recursive: true, force: true });
});

describe("an agent without a store", () => {
  it("keeps a session in the default SQLite file (GLASSLOOP_DB), readable by any store on that file", async () => {
    const agent = new Agent({ model: new ScriptedModel([{ text: "hello" }]) });
    const result = await agent.run("hi", { session: "s1" });
    const other = new SqliteStore({ path: file });
    try {
      expect(await other.readSession("s1")).toEqual(result.messages);
    } finally {
      other.close();
    }
  });

  it("names the default file at once and creates it only on the first call", async () => {
    const agent = new Agent({ model: new ScriptedModel([{ text: "hello" }]) });
    expect(agent.store.location).toBe(file);
    expect(existsSync(file)).toBe(false);
    await agent.run("a run without a session or a pause stores nothing");
    expect(existsSync(file)).toBe(false);
    expect(await agent.store.listSessions()).toEqual([]);
    expect(existsSync(file)).toBe(true);
  });

  it("shares one store per file with every other such agent and with defaultStore()", async () => {
    const first = new Agent({ model: new ScriptedModel([{ text: "one" }]) });
    const second = new Agent({ model: new ScriptedModel([{ text: "two" }]) });
    expect(second.store).toBe(first.store);
    await first.run("1", { session: "shared" });
    await second.run("2", { session: "shared" });
    expect((await defaultStore().readSession("shared")).map((m) => m.content)).toEqual([
      "1",
      "one",
      "2",
      "two",
    ]);
  });
});
