import { describe, expect, it } from "vitest";
import { mayHaveWaiting, runQueue, sessionlessQueue } from "./worker-queue.js";

/** A pool that records the statements it is sent and answers with `rows` rows (or throws). */
function fakePool(rows: number | Error) {
  const sent: { name: string; text: string; values: unknown[] }[] = [];
  return {
    sent,
    query: async (statement: { name: string; text: string; values: unknown[] }) => {
      sent.push(statement);
      if (rows instanceof Error) throw rows;
      return { rowCount: rows };
    },
  };
}

const db = (pool: unknown, schemaName: unknown = "dbos") => ({
  countRunningWorkflowsForQueue: () => 0,
  pool,
  schemaName,
});

describe("mayHaveWaiting: whether a run queue is worth DBOS's dequeue", () => {
  it("asks one prepared statement about the queue's waiting runs, and says no when there are none", async () => {
    const empty = fakePool(0);
    expect(await mayHaveWaiting(db(empty), "glassloop")).toBe(false);
    expect(empty.sent).toEqual([
      {
        name: "glassloop_queue_waiting_dbos",
        text: `select 1 from "dbos".workflow_status where queue_name = $1 and status = 'ENQUEUED' limit 1`,
        values: ["glassloop"],
      },
    ]);
    expect(await mayHaveWaiting(db(fakePool(1)), sessionlessQueue("glassloop"))).toBe(true);
  });

  it("lets the poll go ahead when it cannot ask: no pool, no schema, or a failed read", async () => {
    expect(await mayHaveWaiting(db(undefined), "q")).toBe(true);
    expect(await mayHaveWaiting(db(fakePool(0), null), "q")).toBe(true);
    expect(await mayHaveWaiting(db({ query: "not a function" }), "q")).toBe(true);
    expect(await mayHaveWaiting(db(fakePool(new Error("connection refused"))), "q")).toBe(true);
  });

  it("quotes the schema as an identifier, so a schema name cannot change the statement", async () => {
    const pool = fakePool(0);
    await mayHaveWaiting(db(pool, 'odd"schema'), "q");
    expect(pool.sent[0]?.text).toContain(`from "odd""schema".workflow_status`);
  });
});

describe("runQueue", () => {
  it("puts a session's runs on the partitioned queue and the others on the plain one", () => {
    expect(runQueue("glassloop", "s1")).toEqual({ queueName: "glassloop", queuePartitionKey: "session:s1" });
    expect(runQueue("glassloop", undefined)).toEqual({ queueName: "glassloop.sessionless" });
  });
});
