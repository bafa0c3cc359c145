/**
 * A2A through `serve --scale` (`createHandler({ scale, a2a: true })`): an A2A caller's task runs
 * on a scale-out worker, and its answer, an approval on the task and a tool's question on the task
 * travel to the worker's run as they do for a run driven in the server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AClient } from "../../src/a2a/index.js";
import type { ScaleClient } from "../../src/scale/index.js";
import { PostgresServeLog } from "../../src/serve/postgres-serve-log.js";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import { freshDatabase, type TestWorker } from "../scale/scale-harness.js";
import scaleModule, { words } from "./fixtures/scale-module.js";
import { ALICE, BOB, type Served, served } from "./harness.js";
import { prepareScaleWorkers, spawnScaleWorker } from "./scale-workers.js";

describe.skipIf(POSTGRES_SKIP)("A2A through serve --scale", () => {
  let url: string;
  let worker: TestWorker;
  let client: ScaleClient;
  let s: Served;

  beforeAll(async () => {
    await prepareScaleWorkers();
    url = await freshDatabase();
    worker = spawnScaleWorker("wa", url, { SCALE_SERVE_DELAY_MS: "5" });
    const { ScaleClient } = await import("../../src/scale/index.js");
    client = await ScaleClient.connect({ url, pollMs: 50 });
    const log = await PostgresServeLog.connect({ url });
    const store = new SqliteStore({ path: ":memory:" });
    s = served(
      { agents: scaleModule.agents, scale: { client, pollMs: 30 }, a2a: true },
      store,
      log,
      async () => {
        await log.close();
        store.close();
      },
    );
    await Promise.all([s.handler.ready, worker.ready]);
  }, 60_000);

  afterAll(async () => {
    await s?.close();
    await client?.close();
    worker?.child.kill("SIGTERM");
    await worker?.exited;
  });

  /** glassloop's A2A client for `agent`, as `token`, reaching the handler without a socket. */
  const peer = (agent: string, token = ALICE) =>
    A2AClient.connect(`http://serve.test/a2a/${agent}`, { token, fetch: s.fetch });
  const signal = () => AbortSignal.timeout(30_000);

  it("answers a task: the run goes to the worker, the task completes with the worker's answer", async () => {
    const task = await (await peer("support")).send({ text: "tools please", signal: signal() });
    expect(task.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts.flatMap((a) => a.parts.map((p) => p.text ?? "")).join("")).toBe(words(12));
    // It ran on the worker.
    const [run] = await client.listRuns({ limit: 1 });
    expect(run).toMatchObject({ worker: "wa", agent: "support" });
    // The workflow returns just after it wrote its last event: its result is awaited, not read.
    expect((await client.result(run?.runId as string)).status).toBe("ok");
  });

  it("an approval on the task reaches the run waiting on its worker; another caller cannot send it", async () => {
    const a2a = await peer("support");
    const waiting = await a2a.send({ text: "refund order A", signal: signal() });
    expect(waiting.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const asked = waiting.statusData.find(
      (d): d is { approvals: { approvalId: string; toolName: string }[] } =>
        typeof d === "object" && d !== null && "approvals" in d,
    );
    expect(asked?.approvals[0]?.toolName).toBe("refund");
    // Bob's client does not see alice's task.
    await expect(
      (await peer("support", BOB)).send({
        taskId: waiting.taskId,
        data: { approved: true },
        signal: signal(),
      }),
    ).rejects.toThrow();
    const done = await a2a.send({ taskId: waiting.taskId, data: { approved: true }, signal: signal() });
    expect(done.state).toBe("TASK_STATE_COMPLETED");
    expect(done.artifacts.flatMap((a) => a.parts.map((p) => p.text ?? "")).join("")).toBe(words(12));
  });

  it("a tool's question on the worker makes the task input-required; the answer on the task resumes the run", async () => {
    const a2a = await peer("bank");
    const waiting = await a2a.send({ text: "pay please", signal: signal() });
    expect(waiting.state).toBe("TASK_STATE_INPUT_REQUIRED");
    const asked = waiting.statusData.find(
      (d): d is { type: string; questions: { source: string; message: string }[] } =>
        typeof d === "object" && d !== null && "questions" in d,
    );
    expect(asked).toMatchObject({
      type: "glassloop.question",
      questions: [{ source: "bank", message: "Pay this?" }],
    });
    const done = await a2a.send({
      taskId: waiting.taskId,
      data: { action: "accept", content: { ok: true } },
      signal: signal(),
    });
    expect(done.state).toBe("TASK_STATE_COMPLETED");
    expect(done.artifacts.flatMap((a) => a.parts.map((p) => p.text ?? "")).join("")).toBe("paid 10 ");
  });
});
