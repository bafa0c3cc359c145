/**
 * `glassloop serve` stopped with SIGTERM (a rolling restart) hands its runs over instead of
 * aborting them: with another replica on the same store and log, that replica continues the run
 * at once (not after the lease), and a client whose stream ended reconnects there with its
 * Last-Event-ID and reads exactly the rest; with none, the next process to start resumes it.
 * Leases are long here (20 s), so a take-over that waited for one would fail the test.
 */
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { SERVE_PLACES, type ServePlace } from "../helpers/serve-backends.js";
import {
  chunksOf,
  idsOf,
  readDeltas,
  readRun,
  readToEnd,
  startTurn,
  textOf,
} from "../helpers/serve-client.js";
import { startServeProcess } from "../helpers/serve-process.js";
import { ALICE } from "./harness.js";
import { words } from "./slow-model.js";

const LEASE_MS = 20_000;
const children: ChildProcess[] = [];
const places: ServePlace[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const place of places.splice(0)) await place.cleanup();
});

async function start(place: ServePlace, drainMs = 300): Promise<{ url: string; child: ChildProcess }> {
  const started = await startServeProcess("test/serve/fixtures/handoff-module.ts", place.db, place.log, {
    GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}`,
    TEST_LEASE_MS: String(LEASE_MS),
    TEST_DRAIN_MS: String(drainMs),
  });
  children.push(started.child);
  return started;
}

function exitCode(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe.each(SERVE_PLACES)("SIGTERM hands runs over: $name", (backend) => {
  if (backend.skip) {
    it.skip(backend.skip, () => {});
    return;
  }

  it("mid-run on one of two replicas: the other continues the run at once, and the client reconnecting there reads exactly the rest", async () => {
    const place = await backend.fresh();
    places.push(place);
    const [a, b] = await Promise.all([start(place), start(place)]);
    const stream = await startTurn(a.url, ALICE, "handoff");
    await readDeltas(stream, 5);
    const stopped = Date.now();
    a.child.kill("SIGTERM");

    // A's client: the response ends without the protocol's end, after every event A wrote.
    const seen = await readToEnd(stream);
    expect(seen.at(-1)?.data).not.toBe("[DONE]");
    expect(chunksOf(seen).some((c) => c.type === "finish")).toBe(false);
    expect(await exitCode(a.child)).toBe(0);
    const lastSeen = idsOf(seen).at(-1) as string;
    const rest = await readRun(b.url, ALICE, stream.runId, lastSeen);
    expect(rest.at(-1)?.data).toBe("[DONE]");
    // B did not wait for A's lease to run out: A released it, and B took it over at once.
    expect(Date.now() - stopped).toBeLessThan(LEASE_MS);
    const whole = await readRun(b.url, ALICE, stream.runId);
    const cut = idsOf(whole).indexOf(lastSeen);
    expect(cut).toBeGreaterThanOrEqual(0);
    // No gap and no duplicate: what A's client saw and what it read from B are the stream.
    expect([...idsOf(seen), ...idsOf(rest)]).toEqual(idsOf(whole));
    expect(new Set(idsOf(whole)).size).toBe(idsOf(whole).length);
    expect(chunksOf(rest).at(-1)?.messageMetadata?.status).toBe("ok");
    // The step in flight was handed over at its last checkpoint and asked again on B: whole.
    expect(textOf(rest).endsWith(words(80))).toBe(true);
    const chat = (await (
      await fetch(`${b.url}api/chats/handoff`, { headers: { authorization: `Bearer ${ALICE}` } })
    ).json()) as { activeRun: unknown; messages: unknown[] };
    expect(chat.activeRun).toBeNull();
    expect(chat.messages).toHaveLength(2);
  }, 60_000);

  it("with no other replica: the run stays resumable, and the next process to start resumes it", async () => {
    const place = await backend.fresh();
    places.push(place);
    const a = await start(place);
    const stream = await startTurn(a.url, ALICE, "alone");
    await readDeltas(stream, 5);
    a.child.kill("SIGTERM");
    const seen = await readToEnd(stream);
    expect(seen.at(-1)?.data).not.toBe("[DONE]");
    expect(await exitCode(a.child)).toBe(0);

    const b = await start(place);
    const lastSeen = idsOf(seen).at(-1) as string;
    const rest = await readRun(b.url, ALICE, stream.runId, lastSeen);
    expect(rest.at(-1)?.data).toBe("[DONE]");
    expect(chunksOf(rest).at(-1)?.messageMetadata?.status).toBe("ok");
    expect(textOf(rest).endsWith(words(80))).toBe(true);
    const whole = await readRun(b.url, ALICE, stream.runId);
    expect([...idsOf(seen), ...idsOf(rest)]).toEqual(idsOf(whole));
  }, 60_000);

  it("a second SIGTERM hands the run over at once and exits, though the drain bound is a minute", async () => {
    const place = await backend.fresh();
    places.push(place);
    const a = await start(place, 60_000);
    const stream = await startTurn(a.url, ALICE, "twice");
    await readDeltas(stream, 5);
    const stopped = Date.now();
    a.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    a.child.kill("SIGTERM");
    const seen = await readToEnd(stream);
    expect(await exitCode(a.child)).toBe(0);
    expect(Date.now() - stopped).toBeLessThan(20_000);
    expect(chunksOf(seen).some((c) => c.type === "finish")).toBe(false);

    const b = await start(place);
    const rest = await readRun(b.url, ALICE, stream.runId, idsOf(seen).at(-1));
    expect(chunksOf(rest).at(-1)?.messageMetadata?.status).toBe("ok");
    expect(textOf(rest).endsWith(words(80))).toBe(true);
  }, 60_000);
});
