import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { otelListener } from "glassloop/otel";
import { PostgresStore } from "glassloop/postgres";
import type { ScaleClient, ScaleEvent } from "glassloop/scale";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listRuns as listTraceRuns, readTraceEvents, traceFiles } from "../../src/trace/reader.js";
import { cleanEnv, runCli, tempCwd } from "../helpers/cli.js";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import type { WireServer } from "../helpers/wire-server.js";
import { effectsFile, readEffects, spawnWorker, startScaleSetup, type TestWorker } from "./scale-harness.js";
import { workerOf } from "./scale-script.js";

describe.skipIf(POSTGRES_SKIP)("scale-out on DBOS: runs as workflows on worker processes", () => {
  let url: string;
  let wire: WireServer;
  let client: ScaleClient;
  let worker: TestWorker;
  const effects = effectsFile("glassloop-scale-");

  beforeAll(async () => {
    ({ url, wire, client } = await startScaleSetup());
    worker = spawnWorker("a", { url, wireUrl: wire.url, effects });
    await Promise.race([
      worker.ready,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`worker a not ready after 50 s: ${worker.stderr()}`)), 50_000),
      ),
    ]);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    worker?.child.kill("SIGTERM");
    await worker?.exited;
    await wire?.close();
  });

  /** The calls of `runId` waiting for a decision, once there are some (polled). */
  const waitingCalls = async (scale: ScaleClient, runId: string) => {
    for (;;) {
      const waiting = await scale.pending(runId);
      if (waiting.length > 0) return waiting;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const collect = async (events: AsyncIterable<ScaleEvent>) => {
    const all: ScaleEvent[] = [];
    for await (const e of events) all.push(e);
    return all;
  };

  it("runs an enqueued run on a worker: its result, every event with the worker's name and the exact request bodies, its record in the store", async () => {
    const handle = await client.enqueue("billing", "run r1: charge it");
    const outcome = await handle.result();
    expect(outcome.status).toBe("ok");
    if (outcome.status !== "ok") return;
    expect(outcome.output).toBe("done r1");
    // Three turns of two calls, each call answered once, then the answer.
    const roles = outcome.messages.map((m) => m.role);
    expect(roles).toEqual([
      "system",
      "user",
      ...Array(3).fill(["assistant", "tool", "tool"]).flat(),
      "assistant",
    ]);
    expect(outcome.usage.requests).toBe(4);

    const events = await collect(handle.events());
    expect(events[0]?.event.type).toBe("run_start");
    expect(events.at(-1)?.event.type).toBe("run_end");
    expect(new Set(events.map((e) => e.worker))).toEqual(new Set(["a"]));
    // The model_request events carry exactly what the wire server received.
    const sent = wire.requests.filter((r) => workerOf(r) === "a").map((r) => r.body);
    const bodies = events.flatMap((e) => (e.event.type === "model_request" ? [e.event.body] : []));
    expect(bodies).toHaveLength(4);
    for (const body of bodies) expect(sent).toContainEqual(body);
    // Each non-idempotent call's side effect happened once.
    const charged = readEffects(effects).filter((l) => l.kind === "effect" && l.run === "r1");
    expect(charged.map((l) => l.call)).toEqual(["c_r1_1", "c_r1_2", "c_r1_3"]);

    const store = await PostgresStore.connect({ url });
    try {
      const stored = await store.loadRun(handle.runId);
      expect(stored.status).toBe("ok");
      expect(stored.messages).toEqual(outcome.messages);
    } finally {
      await store.close();
    }
    const listed = await client.listRuns();
    expect(listed.find((r) => r.runId === handle.runId)).toMatchObject({
      status: "SUCCESS",
      agent: "billing",
      worker: "a",
    });
  });

  it("continues a session on the next run and saves both turns in the store", async () => {
    const first = await (await client.enqueue("billing", "run s1: charge it", { session: "alice" })).result();
    const second = await (
      await client.enqueue("billing", "run s2: once more", { session: "alice" })
    ).result();
    expect(first.status).toBe("ok");
    expect(second.status).toBe("ok");
    // The second run saw the first one's whole transcript (its system prompt replaced by the agent's).
    expect(second.messages.slice(1, first.messages.length)).toEqual(first.messages.slice(1));
    const store = await PostgresStore.connect({ url });
    try {
      const session = await store.readSession("alice");
      expect(session.map((m) => m.role)).toEqual(second.messages.slice(1).map((m) => m.role));
    } finally {
      await store.close();
    }
  });

  it("ends a run whose record an execution that crashed before the end had written: one record, ended, with the whole transcript", async () => {
    // The record as the dead execution left it: created (the run's start), never ended.
    const probe = await (await client.enqueue("billing", "run e0: charge it")).result();
    const [system, user] = probe.messages;
    if (probe.status !== "ok" || system?.role !== "system" || user?.role !== "user")
      throw new Error("unexpected probe run");
    const input = "run e1: charge it";
    const runId = "run_recorded_before_a_crash";
    const store = await PostgresStore.connect({ url });
    try {
      await store.createRun({
        runId,
        agent: "billing",
        model: "test",
        input,
        owner: { pid: 1, host: "gone" },
        messages: [system, { ...user, content: input }],
        usage: { ...probe.usage, steps: [] },
        progress: { pending: [] },
      });
      const outcome = await (await client.enqueue("billing", input, { runId })).result();
      expect(outcome.status).toBe("ok");
      const stored = await store.loadRun(runId);
      expect(stored.status).toBe("ok");
      expect(stored.messages).toEqual(outcome.messages);
      expect((await store.listRuns()).filter((r) => r.runId === runId)).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it("waits for an approval answered from another process, then runs the approved call once", async () => {
    const handle = await client.enqueue("billing", "run rf: refund please");
    // The call waits, published with exactly what it would run: nothing ran yet.
    const [waiting] = await waitingCalls(client, handle.runId);
    expect(waiting).toMatchObject({ toolCallId: "r_rf", toolName: "refund", arguments: '{"run":"rf"}' });
    expect(readEffects(effects).filter((l) => l.kind === "refund")).toEqual([]);
    const { ScaleClient } = await import("glassloop/scale");
    const other = await ScaleClient.connect({ url, pollMs: 50 });
    try {
      await other.approve(handle.runId, "r_rf", true);
    } finally {
      await other.close();
    }
    const outcome = await handle.result();
    expect(outcome.status).toBe("ok");
    const tool = outcome.messages.find((m) => m.role === "tool");
    expect(tool).toMatchObject({ role: "tool", content: "refunded rf" });
    expect(
      readEffects(effects)
        .filter((l) => l.kind === "refund")
        .map((l) => l.run),
    ).toEqual(["rf"]);
  });

  it("an approval with nothing waiting is refused, not kept: a later call_1 = deploy PRODUCTION still waits, and the staging decision cannot approve it", async () => {
    const { ApprovalNotWaitingError } = await import("glassloop/scale");
    const handle = await client.enqueue("billing", "run d1: deploy it");
    // call_1 = deploy staging needs no approval and runs; a person approves it anyway (a UI that
    // shows a button per call). Before, DBOS kept that message on the topic named "call_1" and the
    // model's next call_1 = deploy production, which does need approval, consumed it.
    for await (const item of handle.events()) if (item.event.type === "tool_result") break;
    const early = await client.approve(handle.runId, "call_1", true).then(
      () => "accepted",
      (error: unknown) => error,
    );
    const [waiting] = await waitingCalls(client, handle.runId);
    expect(waiting).toMatchObject({
      toolCallId: "call_1",
      toolName: "deploy",
      arguments: '{"run":"d1","env":"production"}',
    });
    const deploys = () =>
      readEffects(effects)
        .filter((l) => l.kind === "deploy" && l.run === "d1")
        .map((l) => l.env);
    expect(deploys()).toEqual(["staging"]);
    expect(early).toBeInstanceOf(ApprovalNotWaitingError);
    // A decision bound to what the person saw (the staging call) is refused too, now that
    // something else waits under the same id.
    await expect(
      client.approve(
        handle.runId,
        { toolCallId: "call_1", toolName: "deploy", arguments: '{"run":"d1","env":"staging"}' },
        true,
      ),
    ).rejects.toThrow(
      /No call of run .* waits for a decision as call_1 \(deploy \{"run":"d1","env":"staging"\}\)/,
    );
    await client.approve(handle.runId, waiting as NonNullable<typeof waiting>, false);
    const outcome = await handle.result();
    expect(outcome.status).toBe("ok");
    expect(deploys()).toEqual(["staging"]);
    expect(outcome.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "deployed d1 to staging",
      "Not approved by the user.",
    ]);
    expect(await client.pending(handle.runId)).toEqual([]);
  });

  it("cancels a run from the client: it ends aborted at its next step", async () => {
    const handle = await client.enqueue("billing", "run rc: refund please");
    for await (const item of handle.events()) if (item.event.type === "tool_call") break;
    await handle.cancel();
    const outcome = await handle.result();
    expect(outcome.status).toBe("aborted");
    expect(readEffects(effects).filter((l) => l.kind === "refund" && l.run === "rc")).toEqual([]);
  });

  it("glassloop enqueue --trace writes the distributed run's trace, each event with its worker, and the trace tools read it", async () => {
    const cwd = tempCwd("glassloop-scale-trace-");
    const run = await runCli(
      ["enqueue", "billing", "run rt: charge it", "--postgres", url, "--trace", "traces", "--json"],
      {
        cwd,
        env: cleanEnv(),
        timeoutMs: 60_000,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    // Warnings are not muted here: the client prints none (pg's queued-query deprecation included).
    expect(run.stderr).not.toMatch(/Warning/);
    const outcome = JSON.parse(run.stdout) as { runId: string; status: string; output: string };
    expect(outcome).toMatchObject({ status: "ok", output: "done rt" });
    const events = readTraceEvents(join(cwd, "traces", `${outcome.runId}.jsonl`));
    expect(events[0]?.type).toBe("run_start");
    expect(events.at(-1)?.type).toBe("run_end");
    for (const event of events) expect((event as { worker?: string }).worker).toBe("a");
    const { runs, skipped } = listTraceRuns(traceFiles(join(cwd, "traces")));
    expect(skipped).toEqual([]);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ runId: outcome.runId, status: "ok" });
  });

  it("a worker prints no warning while it runs (none muted): DBOS's session timeout rides in the connection's startup options, so pg never sees two queries queued on one client", () => {
    expect(worker.stderr()).toContain("consuming queue");
    expect(worker.stderr()).not.toMatch(/Warning/);
  });

  it("refuses a second worker with a live worker's id, and the live one runs on", async () => {
    const twin = spawnWorker("a", { url, wireUrl: wire.url, effects });
    expect(await twin.exited).toBe(2);
    expect(twin.stderr()).toContain('Worker id "a" is held by a live worker');
    const outcome = await (await client.enqueue("billing", "run r2: charge it")).result();
    expect(outcome.status).toBe("ok");
    const listed = await client.listRuns({ limit: 1 });
    expect(listed[0]?.worker).toBe("a");
  });
  it("turns a distributed run's events into OpenTelemetry spans, each naming the worker that ran it", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const listener = otelListener({ tracer: provider.getTracer("test") });
    const handle = await client.enqueue("billing", "run ro: charge it");
    for await (const item of handle.events()) listener({ ...item.event, worker: item.worker });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toContain("invoke_agent billing");
    expect(spans.filter((s) => s.name.startsWith("execute_tool "))).toHaveLength(6);
    for (const span of spans) expect(span.attributes["glassloop.worker"], span.name).toBe("a");
  });

  it("keeps each worker to its own concurrency: a worker started later with a lower limit never lowers another's, and neither runs more than its own", async () => {
    // Worker a runs up to 4 at once; b, started after it, up to 1. Each run holds in its tool
    // until released, and each tool call logs how many runs its worker holds at that moment.
    const b = spawnWorker("b", { url, wireUrl: wire.url, effects, concurrency: 1 });
    try {
      await b.ready;
      const handles = [];
      for (let i = 0; i < 7; i++) handles.push(await client.enqueue("billing", `run h${i}: hold it`));
      const holds = () => readEffects(effects).filter((l) => l.kind === "hold");
      // Both workers full (4 + 1) is the state the limits allow at most; wait for it...
      const deadline = Date.now() + 40_000;
      while (holds().length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      // ...and give a worker over its limit time to take another run (never needed to pass).
      await new Promise((r) => setTimeout(r, 1_000));
      const full = holds();
      expect(full).toHaveLength(5);
      expect(full.filter((l) => l.worker === "a")).toHaveLength(4);
      expect(full.filter((l) => l.worker === "b")).toHaveLength(1);
      writeFileSync(`${effects}.release`, "");
      const outcomes = await Promise.all(handles.map((h) => h.result()));
      expect(outcomes.map((o) => o.status)).toEqual(Array(7).fill("ok"));
      const all = holds();
      expect(all.map((l) => l.run).sort()).toEqual(["h0", "h1", "h2", "h3", "h4", "h5", "h6"]);
      const limit: Record<string, number> = { a: 4, b: 1 };
      for (const line of all) expect(line.holding).toBeLessThanOrEqual(limit[line.worker] ?? 0);
      expect(Math.max(...all.filter((l) => l.worker === "a").map((l) => l.holding ?? 0))).toBe(4);
    } finally {
      b.child.kill("SIGTERM");
      await b.exited;
    }
  }, 90_000);
});
