import { hostname } from "node:os";
import { ConfigError, MissingDependencyError } from "glassloop";
import { PG_SCHEMA_VERSION, PostgresStore } from "glassloop/postgres";
import { DatabaseLockedError, DatabaseOpenError, RunBusyError, SchemaTooNewError } from "glassloop/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshSchema, POSTGRES_SKIP, postgresUrl } from "../../../test/helpers/postgres.js";
import { emptyUsage } from "../../loop/usage.js";
import { loadPg, PG, type PgPool } from "./pg-driver.js";

// A pid above Linux's pid_max: the process that "crashed" is certainly gone.
const DEAD_PID = 2_147_483_000;

describe("loading pg", () => {
  it("a missing pg is a MissingDependencyError naming the exact install command", () => {
    const missing = Object.assign(new Error("Cannot find module 'pg'\nRequire stack: /app/x.js"), {
      code: "MODULE_NOT_FOUND",
    });
    const error = (() => {
      try {
        return loadPg(() => {
          throw missing;
        });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MissingDependencyError);
    expect((error as Error).message).toBe(
      "glassloop/postgres needs pg, which is not installed. Install it with: npm i -E pg@8.23.1",
    );
    expect(PG.install).toBe("npm i -E pg@8.23.1");
    // A module missing deeper down is not fixed by installing pg: it passes through.
    const deeper = Object.assign(new Error("Cannot find module 'pg-types'"), { code: "MODULE_NOT_FOUND" });
    expect(() =>
      loadPg(() => {
        throw deeper;
      }),
    ).toThrow(deeper);
  });
});

describe.skipIf(POSTGRES_SKIP !== undefined)("PostgresStore on a real server", () => {
  let url: string;
  let admin: PgPool;
  const stores: PostgresStore[] = [];
  async function connect(options: { schema?: string; lockTimeoutMs?: number } = {}) {
    const store = await PostgresStore.connect({ url, ...options });
    stores.push(store);
    return store;
  }
  beforeAll(async () => {
    url = await postgresUrl();
    const pg = loadPg();
    admin = new pg.Pool({
      connectionString: url,
      max: 2,
      connectionTimeoutMillis: 10_000,
      idleTimeoutMillis: 1_000,
      options: "",
      application_name: "glassloop test admin",
      types: pg.types,
    });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await admin?.end();
  });

  it("of two connections claiming the same interrupted runs at once, exactly one wins each", async () => {
    const schema = freshSchema();
    const [a, b] = [await connect({ schema }), await connect({ schema })];
    const ids = Array.from({ length: 20 }, (_, i) => `run_${i}`);
    for (const runId of ids) {
      await a.createRun({
        runId,
        agent: "a",
        model: "m",
        input: "hi",
        owner: { pid: DEAD_PID, host: hostname() },
        messages: [{ role: "user", content: "hi" }],
        usage: emptyUsage(false),
        progress: { pending: [] },
      });
    }
    const outcomes = await Promise.all(
      ids.flatMap((runId) =>
        [a, b].map(async (store, i) => {
          const read = await store.loadRun(runId);
          const owner = { pid: DEAD_PID + 1 + i, host: "elsewhere" };
          return store.claimRun(runId, owner, { status: read.status, updatedAt: read.updatedAt }).then(
            () => ({ runId, won: i }),
            (error: unknown) => {
              expect(error).toBeInstanceOf(RunBusyError);
              return { runId, won: -1 };
            },
          );
        }),
      ),
    );
    for (const runId of ids) {
      const winners = outcomes.filter((o) => o.runId === runId && o.won >= 0);
      expect(winners, runId).toHaveLength(1);
      const stored = await b.loadRun(runId);
      expect(stored.owner).toEqual({ pid: DEAD_PID + 1 + (winners[0]?.won ?? 0), host: "elsewhere" });
    }
  });

  it("recordEndedRun stores what createRun then finishRun would, at once; a record that exists is left as it is", async () => {
    const store = await connect({ schema: freshSchema() });
    const usage = {
      ...emptyUsage(false),
      requests: 2,
      steps: [
        { step: 1, inputTokens: 3, outputTokens: 4, cachedInputTokens: 0, toolCalls: 0, durationMs: 5 },
      ],
    };
    const messages = [
      { role: "system" as const, content: "Be brief." },
      { role: "user" as const, content: "hi" },
      { role: "assistant" as const, content: "hello" },
    ];
    const owner = { pid: DEAD_PID, host: hostname() };
    const base = { agent: "a", model: "m", input: "hi", owner };
    // Each way on a session of its own, which the run locked first.
    for (const [runId, session] of [
      ["apart", "s1"],
      ["at_once", "s2"],
    ] as const) {
      const locked = await store.lockSession(session, runId);
      const sessionLink = { sessionId: session, offset: 1, base: 0, version: locked.version };
      if (runId === "apart") {
        await store.createRun({
          ...base,
          runId,
          messages: messages.slice(0, 2),
          usage,
          progress: { pending: [] },
          session: sessionLink,
        });
        await store.finishRun(runId, { persisted: 2, messages, usage, status: "ok", output: "hello" });
      } else {
        const written = await store.recordEndedRun({
          ...base,
          runId,
          messages,
          usage,
          status: "ok",
          output: "hello",
          session: sessionLink,
        });
        expect(written).toBe("created");
      }
    }
    const {
      runId: _a,
      createdAt: _ac,
      updatedAt: _au,
      session: apartSession,
      ...apart
    } = await store.loadRun("apart");
    const {
      runId: _b,
      createdAt: _bc,
      updatedAt: _bu,
      session: onceSession,
      ...once
    } = await store.loadRun("at_once");
    expect(once).toEqual(apart);
    expect(once).toMatchObject({ status: "ok", output: "hello", messages, progress: { pending: [] } });
    expect(onceSession).toEqual({ ...apartSession, sessionId: "s2" });
    expect(await store.readSession("s2")).toEqual(await store.readSession("s1"));
    expect((await store.listSessions()).find((s) => s.sessionId === "s2")?.lockedBy).toBeUndefined();
    // Written again (a replay): nothing changes, and the caller learns the record was there.
    const before = await store.loadRun("at_once");
    const again = await store.recordEndedRun({
      ...base,
      runId: "at_once",
      messages: [],
      usage,
      status: "failed",
    });
    expect(again).toBe("exists");
    expect(await store.loadRun("at_once")).toEqual(before);
    // Without a session: one statement, the same record.
    expect(
      await store.recordEndedRun({ ...base, runId: "alone", messages, usage, status: "ok", output: 1 }),
    ).toBe("created");
    expect(await store.loadRun("alone")).toMatchObject({ status: "ok", output: 1, messages, usage });
  });

  it("a bad URL, a server that is not there, an unknown database: a clear error that never shows the password", async () => {
    const secret = "hunter2-SECRET";
    const port = new URL(url).port;
    const cases = [
      {
        url: `postgres://postgres:${secret}@127.0.0.1:1/postgres`,
        error: DatabaseOpenError,
        says: /postgres:\/\/postgres@127\.0\.0\.1:1\/postgres: nothing is listening there/,
      },
      {
        url: `postgres://postgres:${secret}@127.0.0.1:${port}/no_such_db`,
        error: DatabaseOpenError,
        says: /no_such_db: the database does not exist/,
      },
      { url: `mysql://root:${secret}@host/db`, error: ConfigError, says: /not a valid Postgres URL/ },
    ];
    for (const c of cases) {
      const error = await PostgresStore.connect({ url: c.url, connectTimeoutMs: 5_000 }).catch(
        (e: unknown) => e,
      );
      expect(error, c.url).toBeInstanceOf(c.error);
      expect((error as Error).message).toMatch(c.says);
      expect((error as Error).message).not.toContain(secret);
    }
    const saved = process.env.GLASSLOOP_POSTGRES_URL;
    delete process.env.GLASSLOOP_POSTGRES_URL;
    try {
      await expect(PostgresStore.connect()).rejects.toThrow(/GLASSLOOP_POSTGRES_URL/);
    } finally {
      if (saved !== undefined) process.env.GLASSLOOP_POSTGRES_URL = saved;
    }
    await expect(PostgresStore.connect({ url, schema: "Robert'); DROP" })).rejects.toBeInstanceOf(
      ConfigError,
    );
  });

  it("processes opening a new schema at the same moment migrate it once; a newer schema is refused", async () => {
    const schema = freshSchema();
    const opened = await Promise.all(Array.from({ length: 4 }, () => connect({ schema })));
    expect(opened).toHaveLength(4);
    const version = await admin.query<{ version: number }>(`SELECT version FROM ${schema}.schema_version`);
    expect(version.rows).toEqual([{ version: PG_SCHEMA_VERSION }]);
    await admin.query(`UPDATE ${schema}.schema_version SET version = 999`);
    const error = await PostgresStore.connect({ url, schema }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaTooNewError);
    expect((error as Error).message).toMatch(/schema version 999, newer than this glassloop supports/);
  });

  it("a row lock held past lockTimeoutMs is DatabaseLockedError; the write succeeds once it is released", async () => {
    const schema = freshSchema();
    const store = await connect({ schema, lockTimeoutMs: 50 });
    await store.lockSession("s", "r1");
    await store.unlockSession("s", "r1");
    const holder = await admin.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT * FROM ${schema}.sessions WHERE id = 's' FOR UPDATE`);
      const error = await store.lockSession("s", "r2").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DatabaseLockedError);
      expect((error as Error).message).toContain(store.location);
    } finally {
      await holder.query("ROLLBACK");
      holder.release();
    }
    await expect(store.lockSession("s", "r2")).resolves.toMatchObject({ version: 0 });
  });

  it("location names user, host, port and database, never the password", async () => {
    const store = await connect({ schema: freshSchema() });
    expect(store.location).toBe(url);
    const withPassword = new URL(url);
    withPassword.password = "pw-SECRET";
    const other = await PostgresStore.connect({ url: withPassword.toString(), schema: freshSchema() });
    stores.push(other);
    expect(other.location).not.toContain("pw-SECRET");
  });
});
