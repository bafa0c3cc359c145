/**
 * Two `glassloop serve` replicas that look like two hosts (GLASSLOOP_OWNER_HOST), on one store
 * and log: the one driving a run is frozen (SIGSTOP, as a long pause or a partition would), the
 * other takes the run over once the 1 s lease ran out, not 15 minutes later, and finishes it; the
 * frozen one, woken (SIGCONT), finds it lost the run and writes nothing more: the stored stream
 * and the run's end are exactly what the new driver wrote, with no duplicate.
 */
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { SERVE_PLACES, type ServePlace } from "../helpers/serve-backends.js";
import { chunksOf, idsOf, readDeltas, readRun, startTurn, textOf } from "../helpers/serve-client.js";
import { startServeProcess } from "../helpers/serve-process.js";
import { ALICE } from "./harness.js";
import { words } from "./slow-model.js";

const children: ChildProcess[] = [];
const places: ServePlace[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
  }
  for (const place of places.splice(0)) await place.cleanup();
});

async function start(place: ServePlace, host: string): Promise<{ url: string; child: ChildProcess }> {
  const started = await startServeProcess("test/serve/fixtures/handoff-module.ts", place.db, place.log, {
    GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}`,
    GLASSLOOP_OWNER_HOST: host,
    TEST_LEASE_MS: "1000",
  });
  children.push(started.child);
  return started;
}

describe.each(SERVE_PLACES)("a replica frozen mid-run on another host: $name", (backend) => {
  if (backend.skip) {
    it.skip(backend.skip, () => {});
    return;
  }

  it("the other claims the run once the lease ran out and finishes it; the frozen one, woken, is fenced off and writes nothing", async () => {
    const place = await backend.fresh();
    places.push(place);
    const [a, b] = await Promise.all([start(place, "host-a.test"), start(place, "host-b.test")]);
    const stream = await startTurn(a.url, ALICE, "frozen");
    await readDeltas(stream, 5);
    a.child.kill("SIGSTOP");
    const frozen = Date.now();
    void stream.reader.cancel().catch(() => {});

    // B follows the run in the log; once A's lease ran out it takes the run over and finishes it.
    const whole = await readRun(b.url, ALICE, stream.runId);
    expect(whole.at(-1)?.data).toBe("[DONE]");
    expect(Date.now() - frozen).toBeLessThan(30_000);
    expect(chunksOf(whole).at(-1)?.messageMetadata?.status).toBe("ok");
    expect(textOf(whole).endsWith(words(80))).toBe(true);
    const ids = idsOf(whole);
    expect(new Set(ids).size).toBe(ids.length);

    // A wakes: its model goes on streaming and its lease renewal runs, but the run is B's now.
    a.child.kill("SIGCONT");
    await new Promise((r) => setTimeout(r, 3_000));
    const after = await readRun(b.url, ALICE, stream.runId);
    expect(after).toEqual(whole);
    const run = (await (
      await fetch(`${b.url}api/runs/${stream.runId}`, { headers: { authorization: `Bearer ${ALICE}` } })
    ).json()) as { status: string };
    expect(run.status).toBe("ok");
    // A is alive and serving, and tells the same story: it did not end the run as aborted or failed.
    const seenByA = (await (
      await fetch(`${a.url}api/runs/${stream.runId}`, { headers: { authorization: `Bearer ${ALICE}` } })
    ).json()) as { status: string };
    expect(seenByA.status).toBe("ok");
    const chat = (await (
      await fetch(`${a.url}api/chats/frozen`, { headers: { authorization: `Bearer ${ALICE}` } })
    ).json()) as { activeRun: unknown; messages: unknown[] };
    expect(chat.activeRun).toBeNull();
    expect(chat.messages).toHaveLength(2);
  }, 60_000);
});
