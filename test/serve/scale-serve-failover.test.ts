/**
 * Serving with scale-out workers when a process dies: a worker SIGKILLed mid-answer (another
 * worker replays the run and the client's stream goes on), and the server itself SIGKILLed
 * mid-answer (the next server process follows the run on from the log, and the client
 * reconnects to it): in both, the answer arrives whole, nothing twice.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScaleClient } from "../../src/scale/index.js";
import { PostgresServeLog } from "../../src/serve/postgres-serve-log.js";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import { freshDatabase, type TestWorker } from "../scale/scale-harness.js";
import scaleModule, { words } from "./fixtures/scale-module.js";
import { ALICE, parseSse, type Served, served } from "./harness.js";
import {
  chunksOf,
  prepareScaleWorkers,
  type SseEvent,
  seqsOf,
  spawnScaleServer,
  spawnScaleWorker,
  textOf,
} from "./scale-workers.js";

const alice = { authorization: `Bearer ${ALICE}` };
const post = { ...alice, "content-type": "application/json" };
const send = (chatId: string, text: string) =>
  JSON.stringify({
    id: chatId,
    agent: "support",
    messages: [{ id: "u", role: "user", parts: [{ type: "text", text }] }],
  });
const WORDS = 60;
const dir = mkdtempSync(join(tmpdir(), "glassloop-serve-scale-"));
const effects = join(dir, "effects.log");
const env = { SCALE_SERVE_DELAY_MS: "60", SCALE_SERVE_WORDS: String(WORDS), SCALE_SERVE_EFFECTS: effects };

async function readUntil(res: Response, enough: (events: SseEvent[]) => boolean) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const events = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
    if (enough(events)) return { events, reader, rest: text.slice(text.lastIndexOf("\n\n") + 2) };
    const { value, done } = await reader.read();
    if (done) return { events: parseSse(text), reader, rest: "" };
    text += decoder.decode(value, { stream: true });
  }
}

const finishStatus = (events: SseEvent[]) =>
  (
    chunksOf(events)
      .filter((c) => c.type === "finish")
      .at(-1) as { messageMetadata?: { status?: string } }
  )?.messageMetadata?.status;

describe.skipIf(POSTGRES_SKIP)("serving with scale-out workers: processes that die", () => {
  let url: string;
  let client: ScaleClient;
  const workers: TestWorker[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    await prepareScaleWorkers();
    url = await freshDatabase();
    workers.push(spawnScaleWorker("w1", url, env), spawnScaleWorker("w2", url, env));
    const { ScaleClient } = await import("../../src/scale/index.js");
    client = await ScaleClient.connect({ url, pollMs: 50 });
    await Promise.all(workers.map((w) => w.ready));
  }, 60_000);

  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await client?.close();
    for (const w of workers) w.child.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
    rmSync(dir, { recursive: true, force: true });
  });

  it("a worker SIGKILLed mid-answer: another worker replays the run and the client's stream goes on, no gap, no duplicate", async () => {
    const log = await PostgresServeLog.connect({ url });
    const store = new SqliteStore({ path: ":memory:" });
    const s: Served = served(
      { agents: scaleModule.agents, scale: { client, pollMs: 30 } },
      store,
      log,
      async () => {
        await log.close();
        store.close();
      },
    );
    try {
      const res = await s.fetch("/api/chat", {
        method: "POST",
        headers: post,
        body: send("k1", "long answer"),
      });
      const runId = res.headers.get("x-glassloop-run-id") as string;
      const head = await readUntil(res, (events) => textOf(events).split(" ").length > 10);
      const [running] = await client.listRuns({ runIds: [runId] });
      const victim = workers.find((w) => w.name === running?.worker) as TestWorker;
      victim.child.kill("SIGKILL");
      await victim.exited;
      // The same response goes on: the events the replacement replays land where the dead worker's did.
      const decoder = new TextDecoder();
      let text = head.rest;
      for (;;) {
        const { value, done } = await head.reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const all = [...head.events, ...parseSse(text)];
      expect(all.at(-1)?.data).toBe("[DONE]");
      expect(finishStatus(all)).toBe("ok");
      expect(textOf(all)).toBe(words(WORDS));
      const seqs = seqsOf(all);
      expect(new Set(seqs).size).toBe(seqs.length);
      const [after] = await client.listRuns({ runIds: [runId] });
      expect(after?.worker).not.toBe(victim.name);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("a worker SIGKILLed while its run waits for approval: the decision sent over HTTP reaches the worker that adopts it, and the call runs once", async () => {
    const spare = spawnScaleWorker("w3", url, env);
    workers.push(spare);
    await spare.ready;
    const log = await PostgresServeLog.connect({ url });
    const store = new SqliteStore({ path: ":memory:" });
    const s = served({ agents: scaleModule.agents, scale: { client, pollMs: 30 } }, store, log, async () => {
      await log.close();
      store.close();
    });
    try {
      const res = await s.fetch("/api/chat", {
        method: "POST",
        headers: post,
        body: send("a1", "refund order A"),
      });
      const runId = res.headers.get("x-glassloop-run-id") as string;
      const first = parseSse(await res.text());
      const { approvalId } = chunksOf(first).find((c) => c.type === "tool-approval-request") as unknown as {
        approvalId: string;
      };
      const [waiting] = await client.listRuns({ runIds: [runId] });
      const victim = workers.find((w) => w.name === waiting?.worker) as TestWorker;
      victim.child.kill("SIGKILL");
      await victim.exited;
      const decided = await s.fetch(`/api/runs/${runId}/approvals`, {
        method: "POST",
        headers: post,
        body: JSON.stringify({ decisions: [{ approvalId, approved: true }] }),
      });
      expect(decided.status).toBe(202);
      const lastId = first.filter((e) => e.id !== undefined).at(-1)?.id as string;
      const rest = parseSse(
        await (
          await s.fetch(`/api/runs/${runId}/stream`, { headers: { ...alice, "last-event-id": lastId } })
        ).text(),
      );
      expect(chunksOf(rest).find((c) => c.type === "tool-output-available")).toMatchObject({
        toolCallId: "call_r",
        output: "refunded 5 on A",
      });
      expect(finishStatus(rest)).toBe("ok");
      expect(readFileSync(effects, "utf8").trim().split("\n")).toHaveLength(1);
      const [after] = await client.listRuns({ runIds: [runId] });
      expect(after?.worker).not.toBe(victim.name);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("a server stopped mid-answer hands the run over: the other server follows it on at once, and the client reads it whole there", async () => {
    const open = async () => {
      const log = await PostgresServeLog.connect({ url });
      const store = new SqliteStore({ path: ":memory:" });
      // A long lease: only the hand-over (not a lease running out) can move the run in time.
      return served(
        { agents: scaleModule.agents, scale: { client, pollMs: 30 }, leaseMs: 60_000 },
        store,
        log,
        async () => {
          await log.close();
          store.close();
        },
      );
    };
    const [a, b] = [await open(), await open()];
    try {
      await Promise.all([a.handler.ready, b.handler.ready]);
      const res = await a.fetch("/api/chat", {
        method: "POST",
        headers: post,
        body: send("h1", "long answer"),
      });
      const head = await readUntil(res, (events) => textOf(events).split(" ").length > 5);
      await a.close();
      const lastId = head.events.filter((e) => e.id !== undefined).at(-1)?.id as string;
      const had = head.events.slice(0, head.events.findIndex((e) => e.id === lastId) + 1);
      const tail = await b.fetch("/api/chat/h1/stream", { headers: { ...alice, "last-event-id": lastId } });
      const rest = parseSse(await tail.text());
      expect(finishStatus(rest)).toBe("ok");
      expect(textOf(had) + textOf(rest)).toBe(words(WORDS));
      const seqs = [...seqsOf(had), ...seqsOf(rest)];
      expect(new Set(seqs).size).toBe(seqs.length);
    } finally {
      await b.close();
    }
  }, 60_000);

  it("the server SIGKILLed mid-answer: the next server process follows the run on and a reconnecting client reads it whole", async () => {
    const serveEnv = { GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}` };
    const first = await spawnScaleServer(url, join(dir, "store.db"), serveEnv);
    children.push(first.child);
    const res = await fetch(`${first.url}api/chat`, {
      method: "POST",
      headers: post,
      body: send("k2", "long answer"),
    });
    expect(res.status).toBe(200);
    const head = await readUntil(res, (events) => textOf(events).split(" ").length > 10);
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    const lastId = head.events.filter((e) => e.id !== undefined).at(-1)?.id as string;
    const had = head.events.slice(0, head.events.findIndex((e) => e.id === lastId) + 1);

    const second = await spawnScaleServer(url, join(dir, "store.db"), serveEnv);
    children.push(second.child);
    const tail = await fetch(`${second.url}api/chat/k2/stream`, {
      headers: { ...alice, "last-event-id": lastId },
    });
    expect(tail.status).toBe(200);
    const rest = parseSse(await tail.text());
    expect(rest.at(-1)?.data).toBe("[DONE]");
    expect(finishStatus(rest)).toBe("ok");
    expect(textOf(had) + textOf(rest)).toBe(words(WORDS));
    const seqs = [...seqsOf(had), ...seqsOf(rest)];
    expect(new Set(seqs).size).toBe(seqs.length);
    second.child.kill("SIGTERM");
    await new Promise((resolve) => second.child.once("exit", resolve));
  }, 60_000);
});
