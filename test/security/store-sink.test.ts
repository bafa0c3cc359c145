/**
 * The store sink: an Agent given a store directly (no CLI, no worker) scrubs every write, so a
 * model that echoes a secret of the environment gets it into neither the SQLite file (nor its WAL)
 * nor the Postgres tables. Read back raw, not through the store.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scrubberFor } from "../../src/core/sink.js";
import { Agent, tool } from "../../src/index.js";
import { emptyUsage } from "../../src/loop/usage.js";
import { currentOwner } from "../../src/store/owner.js";
import { loadPg, type PgPoolConfig } from "../../src/store/postgres/pg-driver.js";
import { PostgresStore } from "../../src/store/postgres/postgres-store.js";
import { redactingStore } from "../../src/store/redacting-store.js";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";
import { ScriptedModel } from "../../src/testing.js";
import { POSTGRES_SKIP, postgresUrl } from "../helpers/postgres.js";

// A known secret of this process's environment, set before any sink gathers the environment's secrets.
const SECRET = "echoed-store-secret-value-0123";
process.env.GLASSLOOP_ECHO_TEST_TOKEN = SECRET;

const note = tool({
  name: "note",
  description: "Writes a note.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => `noted: ${text}`,
});

/** A run on `store` whose model repeats the secret in a tool call and in its answer. */
async function echoingRun(store: Store): Promise<void> {
  const agent = new Agent({
    instructions: "Answer.",
    model: new ScriptedModel([
      { toolCalls: [{ name: "note", args: { text: `the token is ${SECRET}` } }] },
      { text: `Done; the token is ${SECRET}` },
    ]),
    tools: [note],
    store,
  });
  const result = await agent.run("Keep this safe", { session: "echo" });
  expect(result.output).toContain("Done");
}

describe("an Agent's own store is a redacting sink", () => {
  it("SQLite: the database file and its WAL hold no echoed secret", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "glassloop-store-sink-")), "runs.db");
    const store = new SqliteStore({ path: file });
    try {
      await echoingRun(store);
    } finally {
      store.close();
    }
    const bytes = [file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f).toString("latin1"));
    expect(bytes.join("")).toContain("[REDACTED]");
    expect(bytes.join("")).not.toContain(SECRET);
  });

  it.skipIf(POSTGRES_SKIP)("Postgres: no table of the store's schema holds the echoed secret", async () => {
    const url = await postgresUrl();
    const schema = `store_sink_${process.pid}_${Date.now().toString(36)}`;
    const store = await PostgresStore.connect({ url, schema });
    try {
      await echoingRun(store);
    } finally {
      await store.close();
    }
    const everything = await rawRows(url, schema);
    expect(everything).toContain("[REDACTED]");
    expect(everything).not.toContain(SECRET);
  });

  it.skipIf(POSTGRES_SKIP)(
    "Postgres: a run recorded once it ended (recordEndedRun, a scale-out worker's one write) is scrubbed too",
    async () => {
      const url = await postgresUrl();
      const schema = `store_sink_ended_${process.pid}_${Date.now().toString(36)}`;
      const raw = await PostgresStore.connect({ url, schema });
      // As a worker wraps its store (src/scale/worker.ts).
      const store = redactingStore(raw, scrubberFor());
      try {
        const locked = await store.lockSession("echo", "ended");
        const written = await store.recordEndedRun({
          runId: "ended",
          agent: "a",
          model: "m",
          input: `Keep ${SECRET} safe`,
          owner: currentOwner(),
          messages: [
            { role: "user", content: `Keep ${SECRET} safe` },
            { role: "assistant", content: `the token is ${SECRET}` },
          ],
          usage: emptyUsage(false),
          status: "failed",
          output: { echoed: SECRET },
          error: { code: "tool_error", message: `the server said ${SECRET}` },
          session: { sessionId: "echo", offset: 0, base: 0, version: locked.version },
        });
        expect(written).toBe("created");
      } finally {
        await raw.close();
      }
      const everything = await rawRows(url, schema);
      // The record and the session's turn are there, scrubbed.
      expect(everything).toContain("the token is [REDACTED]");
      expect(everything).toContain("the server said [REDACTED]");
      expect(everything).not.toContain(SECRET);
    },
  );
});

/** Every row of every table of `schema`, as text, read straight from Postgres. */
async function rawRows(url: string, schema: string): Promise<string> {
  const pg = loadPg();
  const pool = new pg.Pool({ connectionString: url, max: 1 } as PgPoolConfig);
  try {
    const { rows: tables } = await pool.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE'",
      [schema],
    );
    expect(tables.length).toBeGreaterThan(0);
    let everything = "";
    for (const t of tables) {
      const { rows } = await pool.query<{ row: string }>(
        `select t::text as row from "${schema}"."${t.table_name}" t`,
      );
      everything += rows.map((r) => r.row).join("\n");
    }
    return everything;
  } finally {
    await pool.end();
  }
}
