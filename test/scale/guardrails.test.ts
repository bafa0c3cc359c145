import { existsSync, writeFileSync } from "node:fs";
import type { ScaleClient, ScaleEvent } from "glassloop/scale";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import type { WireServer } from "../helpers/wire-server.js";
import { effectsFile, readEffects, spawnWorker, startScaleSetup, type TestWorker } from "./scale-harness.js";

const ready = (worker: TestWorker) =>
  Promise.race([
    worker.ready,
    new Promise((_, reject) =>
      setTimeout(
        () => reject(new Error(`worker ${worker.name} not ready after 50 s: ${worker.stderr()}`)),
        50_000,
      ),
    ),
  ]);

async function until(what: string, test: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(POSTGRES_SKIP)("guardrails on scale-out workers", () => {
  let url: string;
  let wire: WireServer;
  let client: ScaleClient;
  const workers: TestWorker[] = [];
  const effects = effectsFile("glassloop-scale-guardrails-");

  beforeAll(async () => {
    ({ url, wire, client } = await startScaleSetup());
    workers.push(spawnWorker("g1", { url, wireUrl: wire.url, effects }));
    await ready(workers[0] as TestWorker);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    for (const w of workers) w.child.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
    await wire?.close();
  });

  const collect = async (events: AsyncIterable<ScaleEvent>) => {
    const all: ScaleEvent[] = [];
    for await (const e of events) all.push(e);
    return all;
  };

  it("a tool guardrail refuses a call on a worker, the run goes on, and its verdicts are the run's events", async () => {
    const handle = await client.enqueue("guarded", "run g1: charge it");
    const outcome = await handle.result();
    expect(outcome.status).toBe("ok");
    const refused = outcome.messages.find((m) => m.role === "tool" && m.toolCallId === "c_g1_2");
    expect(refused).toMatchObject({ content: "One charge is enough.", isError: true });
    const charged = readEffects(effects).filter((l) => l.kind === "effect" && l.run === "g1");
    expect(charged.map((l) => l.call)).toEqual(["c_g1_1", "c_g1_3"]);
    const events = await collect(handle.events());
    const verdicts = events.flatMap((e) => (e.event.type === "guardrail" ? [e.event] : []));
    expect(verdicts.map((v) => [v.name, v.stage, v.toolCallId, v.action])).toEqual([
      ["no-forbidden", "input", undefined, "allow"],
      ["no-second-charge", "tool_before", "c_g1_1", "allow"],
      ["no-second-charge", "tool_before", "c_g1_2", "reject"],
      ["no-second-charge", "tool_before", "c_g1_3", "allow"],
    ]);
  });

  it("an input tripwire ends a worker's run with its code, before any model call", async () => {
    const before = wire.requests.length;
    const outcome = await (await client.enqueue("guarded", "run g2: something forbidden")).result();
    expect(outcome.status).toBe("failed");
    if (outcome.status === "ok") return;
    expect(outcome.error.code).toBe("guardrail_tripwire");
    expect(wire.requests.length).toBe(before);
  });

  it("a run whose worker died replays the recorded verdict on the next worker instead of checking again", async () => {
    const handle = await client.enqueue("guarded", "run g3: hold it");
    // The guardrail allowed the call and the call is running (held) when the worker dies.
    await until("the held call", () => readEffects(effects).some((l) => l.kind === "hold" && l.run === "g3"));
    const first = workers[0] as TestWorker;
    first.child.kill("SIGKILL");
    await first.exited;
    const second = spawnWorker("g2", { url, wireUrl: wire.url, effects });
    workers.push(second);
    await ready(second);
    // The replacement adopts the run and takes the call up again (hold is idempotent).
    await until("the call held again", () =>
      readEffects(effects).some((l) => l.kind === "hold" && l.run === "g3" && l.worker === "g2"),
    );
    writeFileSync(`${effects}.release`, "");
    const outcome = await handle.result();
    expect(outcome.status).toBe("ok");
    const checks = readEffects(effects).filter((l) => l.kind === "guard" && l.run === "g3");
    expect(checks.map((l) => [l.call, l.worker])).toEqual([["h_g3", "g1"]]);
    expect(existsSync(`${effects}.release`)).toBe(true);
  }, 90_000);
});
