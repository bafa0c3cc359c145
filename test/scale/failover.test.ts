import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failoverBoundMs, type QueuedRunResult, type ScaleClient } from "glassloop/scale";
import { afterAll, describe, expect, it } from "vitest";
import { interruptedContent } from "../../src/features/durability/resume.js";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";
import {
  type EffectLine,
  freshDatabase,
  prepareWorkers,
  readEffects,
  spawnWorker,
  type TestWorker,
  TIMING,
} from "./scale-harness.js";
import { scriptedReply, workerOf } from "./scale-script.js";

const RUNS = 30;
/** Where the workers are killed, in turn: inside a model call, inside a tool, right after a tool returned. */
const KILL_PLAN = [
  "model",
  "tool",
  "returned",
  "model",
  "tool",
  "returned",
  "model",
  "tool",
  "returned",
  "tool",
] as const;
const MODEL_MS = 300;
const TOOL_MS = 300;
/** Slack over the configured failover bound for a loaded 2-core machine. */
const SLACK_MS = 4_000;

type KillKind = (typeof KILL_PLAN)[number];
interface Kill {
  kind: KillKind;
  victim: string;
  at: number;
  /** The call the victim was in (tool kills), or the run it asked the model about (model kills). */
  call?: string;
  /** The victim's runs in flight, and when each was taken from it (back on the queue, or running elsewhere). */
  adopted: Map<string, number | undefined>;
}

describe.skipIf(POSTGRES_SKIP)("failover between worker processes killed with SIGKILL", () => {
  const workers = new Map<string, TestWorker>();
  let wire: WireServer | undefined;
  let client: ScaleClient | undefined;

  afterAll(async () => {
    await client?.close();
    for (const w of workers.values()) w.child.kill("SIGKILL");
    await Promise.all([...workers.values()].map((w) => w.exited));
    await wire?.close();
  });

  it("finishes every run of 3 workers with one killed at 10 points: no side effect twice, every cut-off call reported, transcripts as uninterrupted, adopted within the bound", async () => {
    await prepareWorkers();
    const url = await freshDatabase();
    const effects = join(mkdtempSync(join(tmpdir(), "glassloop-failover-")), "effects.log");
    const server = await startWireServer();
    wire = server;
    const live = new Set<string>();
    const ready = new Set<string>();
    let spawned = 0;
    const start = () => {
      const name = `w${++spawned}`;
      const worker = spawnWorker(name, {
        url,
        wireUrl: server.url,
        effects,
        toolMs: TOOL_MS,
        concurrency: 1,
      });
      workers.set(name, worker);
      live.add(name);
      void worker.ready
        .then(() => {
          ready.add(name);
          if (process.env.SCALE_DEBUG) console.error(`ready ${name} at ${Date.now() - t0}`);
        })
        .catch((error: unknown) => {
          live.delete(name);
          console.error(`worker ${name} did not start: ${String(error)}`);
        });
      return worker;
    };
    const kills: Kill[] = [];
    const t0 = Date.now();
    let armed: KillKind | undefined;
    let armedAt = 0;
    const arm = (kind: KillKind) => {
      armedAt = Date.now();
      armed = kind;
    };
    const { ScaleClient } = await import("glassloop/scale");
    const scale = await ScaleClient.connect({ url, pollMs: 50 });
    client = scale;

    const kill = (victim: string, kind: KillKind, call?: string) => {
      armed = undefined;
      workers.get(victim)?.child.kill("SIGKILL");
      live.delete(victim);
      ready.delete(victim);
      const record: Kill = { kind, victim, at: Date.now(), adopted: new Map(), ...(call && { call }) };
      if (process.env.SCALE_DEBUG)
        console.error(`kill ${kind} ${victim} at ${record.at - t0} ready ${[...ready]}`);
      kills.push(record);
      // The victim's runs in flight at the moment it died, then the moment each changes hands.
      void watchAdoption(scale, record);
      start();
      // The next kill waits a moment, and for a second worker to take over from the victim;
      // the replacement brings the count back to three.
      const next = KILL_PLAN[kills.length];
      if (next) setTimeout(() => void waitReady(2).then(() => arm(next)), 300);
    };
    const waitReady = async (n: number) => {
      while (ready.size < n) await new Promise((r) => setTimeout(r, 20));
    };
    // A victim is a worker with someone to take over its runs.
    const victimOk = (name: string) => ready.has(name) && ready.size >= 2;

    server.handler = (request) => {
      const from = workerOf(request);
      if (armed === "model" && victimOk(from)) kill(from, "model");
      return scriptedReply(request, MODEL_MS);
    };
    let offset = 0;
    const watcher = setInterval(() => {
      let size = 0;
      try {
        size = statSync(effects).size;
      } catch {
        return;
      }
      if (size <= offset) return;
      const text = readFileSync(effects, "utf8").slice(offset);
      const lastNewline = text.lastIndexOf("\n");
      if (lastNewline < 0) return;
      offset += Buffer.byteLength(text.slice(0, lastNewline + 1));
      for (const raw of text.slice(0, lastNewline).split("\n")) {
        if (raw === "") continue;
        const line = JSON.parse(raw) as EffectLine;
        const kind = line.kind === "effect" ? "tool" : line.kind === "returned" ? "returned" : undefined;
        // Only a line written after the kill was armed: the moment must be now, not history.
        if (kind && armed === kind && line.at >= armedAt && victimOk(line.worker)) {
          kill(line.worker, kind, line.call);
          return;
        }
      }
    }, 5);

    try {
      for (let i = 0; i < 3; i++) start();
      await waitReady(3);
      // The reference: one run nobody interrupts.
      const reference = await (await scale.enqueue("billing", "run ref: charge it")).result();
      expect(reference.status).toBe("ok");

      const handles = [];
      for (let i = 0; i < RUNS; i++) handles.push(await scale.enqueue("billing", `run r${i}: charge it`));
      arm(KILL_PLAN[0]);
      const outcomes = await Promise.all(
        handles.map((h) =>
          h.result().then((o) => {
            if (process.env.SCALE_DEBUG) console.error(`done ${h.runId} at ${Date.now() - t0}`);
            return o;
          }),
        ),
      );
      expect(kills.map((k) => k.kind)).toEqual([...KILL_PLAN]);

      // Every run completes, with the transcript of an uninterrupted run, except the calls a
      // kill cut off, which say so.
      const all = readEffects(effects);
      const interrupted = new Set<string>();
      outcomes.forEach((outcome, i) => {
        const run = `r${i}`;
        expect(outcome.status, `${run}: ${JSON.stringify(outcome)}`).toBe("ok");
        const expected = expectedTranscript(reference, run);
        const got = outcome.messages.map((m) => {
          if (m.role === "tool" && m.content === interruptedContent("charge")) {
            interrupted.add(m.toolCallId);
            // Marked as an error, as on SQLite; otherwise the uninterrupted run's message.
            const { isError, ...rest } = m;
            expect(isError).toBe(true);
            return { ...rest, content: `charged ${run} #${Number(m.toolCallId.split("_")[2])}` };
          }
          return m;
        });
        expect(got, run).toEqual(expected);
      });

      // No non-idempotent side effect twice; a call whose effect began but never returned is reported.
      const effectCount = new Map<string, number>();
      for (const line of all)
        if (line.kind === "effect" && line.call)
          effectCount.set(line.call, (effectCount.get(line.call) ?? 0) + 1);
      for (const [call, count] of effectCount) expect(count, call).toBe(1);
      const returned = new Set(all.filter((l) => l.kind === "returned").map((l) => l.call));
      for (const call of effectCount.keys())
        if (!returned.has(call))
          expect(interrupted.has(call), JSON.stringify(all.filter((l) => l.call === call))).toBe(true);
      for (const k of kills)
        if (k.kind === "tool") expect(interrupted.has(k.call as string), k.call).toBe(true);
      // An interrupted call is never a call that returned and was recorded... unless the kill came
      // right after it returned, before its step was written: then its effect happened exactly once.
      for (const call of interrupted) expect(effectCount.get(call) ?? 0).toBeLessThanOrEqual(1);

      // Each killed worker's runs were taken over within the bound.
      const bound = failoverBoundMs(TIMING);
      const times: number[] = [];
      for (const k of kills)
        for (const [runId, at] of k.adopted) {
          expect(at, `${runId} of ${k.victim}`).toBeDefined();
          times.push((at as number) - k.at);
        }
      if (process.env.SCALE_DEBUG)
        for (const k of kills)
          console.error(
            `${k.kind} ${k.victim}: ${[...k.adopted].map(([id, at]) => `${id.slice(4, 12)} ${(at ?? 0) - k.at}`).join(", ")}`,
          );
      expect(times.length).toBeGreaterThan(0);
      expect(Math.max(...times)).toBeLessThanOrEqual(bound + SLACK_MS);
      console.info(
        `failover: ${kills.length} kills, ${times.length} runs adopted, ${interrupted.size} calls interrupted; ` +
          `takeover ms min ${Math.min(...times)} median ${median(times)} max ${Math.max(...times)} (bound ${bound} + slack ${SLACK_MS})`,
      );

      // The events report each cut-off call as the SQLite resume does: status interrupted.
      for (const call of interrupted) {
        const index = Number(call.split("_")[1]?.slice(1));
        const handle = handles[index];
        if (!handle) throw new Error(`no run for ${call}`);
        const statuses: string[] = [];
        for await (const item of handle.events())
          if (item.event.type === "tool_result" && item.event.toolCallId === call)
            statuses.push(item.event.status);
        expect(statuses, call).toEqual(["interrupted"]);
      }

      // Runs that changed hands show both workers in their events. Not every one must: a worker
      // writes its runs' events in batches (up to 20 ms), so a kill can come before the victim's
      // first write, and the adopter then writes the whole stream.
      const moved = [...kills.flatMap((k) => [...k.adopted.keys()])];
      let both = 0;
      for (const runId of moved) {
        const seen = new Set<string>();
        for await (const item of scale.handle(runId).events()) seen.add(item.worker);
        expect(seen.size, runId).toBeGreaterThanOrEqual(1);
        if (seen.size >= 2) both++;
      }
      expect(both, `of ${moved.length} adopted runs, those whose events show both workers`).toBeGreaterThan(
        0,
      );
    } finally {
      clearInterval(watcher);
    }
  }, 150_000);
});

/** The reference run's transcript with another run's name. */
function expectedTranscript(reference: QueuedRunResult, run: string): unknown {
  return JSON.parse(JSON.stringify(reference.messages).replaceAll("ref", run));
}

/**
 * Polls until each run the victim held is no longer its: DBOS puts an adopted run back on its
 * queue, ahead of newer runs, and the next worker with a free slot takes it.
 */
async function watchAdoption(client: ScaleClient, kill: Kill): Promise<void> {
  const held = await client.listRuns({ worker: kill.victim, status: "PENDING" });
  for (const run of held) kill.adopted.set(run.runId, undefined);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && [...kill.adopted.values()].some((v) => v === undefined)) {
    const open = [...kill.adopted].filter(([, at]) => at === undefined).map(([id]) => id);
    for (const row of await client.listRuns({ runIds: open })) {
      if (row.worker !== kill.victim || row.status !== "PENDING") kill.adopted.set(row.runId, Date.now());
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
