/**
 * Two `glassloop serve` processes on one Postgres (store and log), as two replicas behind a load
 * balancer: one is SIGKILLed mid-run, and the other, still serving, takes the run over, so a
 * client that reconnects to it with its Last-Event-ID reads the run to its end with no gap.
 */
import type { ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { POSTGRES_SKIP, postgresUrl } from "../helpers/postgres.js";
import { startServeProcess } from "../helpers/serve-process.js";
import { ALICE, parseSse } from "./harness.js";
import { words } from "./slow-model.js";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** `glassloop serve` in a child process (see startServeProcess); killed after each test. */
async function start(url: string): Promise<{ url: string; child: ChildProcess }> {
  const started = await startServeProcess("test/serve/fixtures/cluster-module.ts", url, url, {
    GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}`,
  });
  children.push(started.child);
  return started;
}

describe.skipIf(POSTGRES_SKIP !== undefined)("two serve processes on one Postgres", () => {
  let url: string;
  beforeAll(async () => {
    // A database of its own: both processes use the default schema in it, as replicas would.
    const server = await postgresUrl();
    const name = `serve_cluster_${process.pid}_${Date.now().toString(36)}`;
    const { Client } = createRequire(import.meta.url)("pg") as {
      Client: new (config: {
        connectionString: string;
      }) => {
        connect(): Promise<unknown>;
        query(text: string): Promise<unknown>;
        end(): Promise<void>;
      };
    };
    const admin = new Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const parsed = new URL(server);
    parsed.pathname = `/${name}`;
    url = parsed.toString();
  });
  afterAll(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
  });

  it("a process killed mid-run: the other takes the run over and a client reconnecting there with Last-Event-ID reads it to the end", async () => {
    const [a, b] = await Promise.all([start(url), start(url)]);
    const res = await fetch(`${a.url}api/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/json" },
      body: JSON.stringify({
        id: "crash",
        messages: [{ role: "user", parts: [{ type: "text", text: "go" }] }],
      }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let head = "";
    const complete = () => parseSse(head.slice(0, head.lastIndexOf("\n\n") + 2));
    while (complete().filter((e) => e.data.includes("text-delta")).length < 5)
      head += new TextDecoder().decode((await reader.read()).value);
    a.child.kill("SIGKILL");
    await new Promise((r) => a.child.once("exit", r));
    const seen = complete();
    const lastSeen = seen.filter((e) => e.id !== undefined).at(-1)?.id as string;
    const [runId, seq] = [lastSeen.slice(0, lastSeen.lastIndexOf("/")), Number(lastSeen.split("/").at(-1))];

    // B never drove this run; its recovery finds the dead driver and resumes the run.
    const resumed = await fetch(`${b.url}api/runs/${runId}/stream`, {
      headers: { authorization: `Bearer ${ALICE}`, "last-event-id": lastSeen },
    });
    expect(resumed.status).toBe(200);
    const rest = parseSse(await resumed.text());
    expect(rest.at(-1)?.data).toBe("[DONE]");
    // Every event after the last one seen, each once: the run's whole stream as B replays it, cut there.
    const whole = parseSse(
      await (
        await fetch(`${b.url}api/runs/${runId}/stream`, { headers: { authorization: `Bearer ${ALICE}` } })
      ).text(),
    );
    const ids = (events: { id?: string }[]) => events.flatMap((e) => (e.id === undefined ? [] : [e.id]));
    const cut = ids(whole).indexOf(lastSeen);
    expect(cut).toBeGreaterThanOrEqual(0);
    expect(ids(rest)).toEqual(ids(whole).slice(cut + 1));
    expect(Number(ids(rest)[0]?.split("/").at(-1))).toBeGreaterThan(seq);
    // What A's client saw is what the log holds: the two halves are the stream, nothing seen was lost.
    expect([...ids(seen), ...ids(rest)]).toEqual(ids(whole));
    const chunks = rest
      .slice(0, -1)
      .map(
        (e) => JSON.parse(e.data) as { type: string; delta?: string; messageMetadata?: { status?: string } },
      );
    expect(chunks.at(-1)?.type).toBe("finish");
    expect(chunks.at(-1)?.messageMetadata?.status).toBe("ok");
    // The step in flight at the kill ran again in B: the answer's last text part is whole.
    const text = chunks
      .filter((c) => c.type === "text-delta")
      .map((c) => c.delta)
      .join("");
    expect(text.endsWith(words(80))).toBe(true);
    const chat = (await (
      await fetch(`${b.url}api/chats/crash`, { headers: { authorization: `Bearer ${ALICE}` } })
    ).json()) as { activeRun: unknown; messages: unknown[] };
    expect(chat.activeRun).toBeNull();
    expect(chat.messages).toHaveLength(2);
  }, 120_000);
});
