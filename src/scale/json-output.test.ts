import { describe, expect, it } from "vitest";
import { batchPool } from "../../test/helpers/batch-pool.js";
import { scrubberFor } from "../core/sink.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import { EventLog } from "./events.js";
import { fromJsonOutput, jsonOutput } from "./json-output.js";
import { type Fence, RunSteps } from "./run-steps.js";
import type { DbosModule } from "./sdk.js";

const SECRET = "hunter2-very-secret-token";
const redactor = scrubberFor({}, { secrets: [SECRET] });
const fence: Fence = { live: () => true, confirm: async () => true, fenced: () => {} };

/** A step output that holds the secret in text, under a credential-named key, and a quote to escape. */
const output = () => ({
  request: { messages: [{ role: "user", content: `my key is ${SECRET} "quoted"` }] },
  headers: { authorization: "Bearer abc", accept: "json" },
  n: 3,
});
const scrubbed = {
  request: { messages: [{ role: "user", content: 'my key is [REDACTED] "quoted"' }] },
  headers: { authorization: "[REDACTED]", accept: "json" },
  n: 3,
};

/** DBOS's part: runs the step and keeps its output, or, replaying, returns what was kept. */
function dbos(recorded: unknown[], replay: boolean): DbosModule["DBOS"] {
  return {
    runStep: async (fn: () => Promise<unknown>) => {
      if (replay) return recorded.shift();
      const out = await fn();
      recorded.push(out);
      return out;
    },
  } as unknown as DbosModule["DBOS"];
}

describe("values DBOS records as JSON text", () => {
  it("a json step records its output scrubbed while serialized, and live and replayed executions get the same scrubbed value", async () => {
    const recorded: unknown[] = [];
    const live = await new RunSteps(dbos(recorded, false), "r", fence, redactor).step(
      "model",
      async () => output(),
      {
        json: true,
      },
    );
    const [row] = recorded;
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(fromJsonOutput(row)).toEqual(scrubbed);
    expect(live).toEqual(scrubbed);
    const replayed = await new RunSteps(dbos([row], true), "r", fence, redactor).step(
      "model",
      async () => {
        throw new Error("a replay does not run the step");
      },
      { json: true },
    );
    expect(replayed).toEqual(live);
  });

  it("reads a value an older release recorded as itself, and one recorded as JSON text", () => {
    expect(fromJsonOutput({ status: "ok", output: 1 })).toEqual({ status: "ok", output: 1 });
    expect(fromJsonOutput(null)).toBeNull();
    expect(fromJsonOutput(jsonOutput('{"status":"ok"}'))).toEqual({ status: "ok" });
  });

  it("an event's row is its scrubbed JSON, in a batch that is one valid JSON array", async () => {
    const { pool, batches } = batchPool();
    const log = new EventLog(pool, "run-json", "worker-1", redactor);
    const event = { type: "model_request", step: 1, model: "m", attempt: 1, body: output() } as AgentEvent;
    log.record(1, event);
    log.record(2, { ...event, step: 2 } as AgentEvent);
    await log.flushed();
    const rows = batches.flatMap(
      (b) => JSON.parse(b) as { op: number; seq: number; event: { body: unknown } }[],
    );
    expect(rows.map((r) => [r.op, r.seq])).toEqual([
      [1, 0],
      [2, 0],
    ]);
    for (const r of rows) expect(r.event.body).toEqual(scrubbed);
    expect(batches.join("")).not.toContain(SECRET);
  });
});
