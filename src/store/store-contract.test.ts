/**
 * The Store contract, one suite run against every implementation (SQLite and Postgres) with the
 * same assertions. Implementation details (file damage, migrations of old files, driver errors)
 * are tested beside each implementation.
 */
import { type Message, RunNotResumableError, SessionBusyError, type Store, UnknownRunError } from "glassloop";
import { RunBusyError, UnknownSessionError } from "glassloop/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BACKENDS } from "../../test/helpers/store-backends.js";
import { emptyUsage } from "../loop/usage.js";
import { currentOwner, markActive } from "./owner.js";

const user = (content: string): Message => ({ role: "user", content });
const answer = (content: string): Message => ({ role: "assistant", content });

function newRun(
  runId: string,
  messages: Message[],
  session?: { sessionId: string; base: number; version: number },
) {
  return {
    runId,
    agent: "a",
    model: "scripted:test",
    input: "hi",
    owner: currentOwner(),
    messages,
    usage: emptyUsage(false),
    progress: { pending: [] },
    ...(session && { session: { ...session, offset: 0 } }),
  };
}

describe.each(BACKENDS)("Store contract: $name", (backend) => {
  if (backend.skip) {
    it.skip(backend.skip, () => {});
    return;
  }
  let store: Store;
  beforeEach(async () => {
    await backend.fresh();
    store = await backend.open();
  });
  afterEach(() => backend.cleanup());

  describe("runs", () => {
    it("appends checkpoints and another connection reads the run back", async () => {
      await store.createRun(newRun("r1", [user("hi")]));
      const usage = emptyUsage(false);
      usage.steps.push({
        step: 1,
        inputTokens: 3,
        outputTokens: 2,
        cachedInputTokens: 0,
        toolCalls: 0,
        durationMs: 1,
      });
      usage.requests = 1;
      const messages = [user("hi"), answer("hello")];
      await store.checkpoint("r1", {
        persisted: 1,
        messages,
        usage,
        progress: { pending: [] },
        status: "running",
      });
      await store.finishRun("r1", { persisted: 2, messages, usage, status: "ok", output: "hello" });
      const run = await (await backend.open()).loadRun("r1");
      expect(run.messages).toEqual(messages);
      expect(run.usage.steps).toHaveLength(1);
      expect(run.usage.requests).toBe(1);
      expect(run).toMatchObject({ status: "ok", output: "hello", input: "hi", agent: "a" });
      expect(run.updatedAt).toBeGreaterThanOrEqual(run.createdAt);
    });

    it("round-trips any text exactly: NUL, quotes, backslashes, emoji, lone surrogates, big numbers", async () => {
      const odd = 'a\u0000b "q" \\ \u{1F600} \n\t';
      // A lone surrogate survives inside messages (JSON escapes it); the SQLite driver turns one
      // in a plain text column (the input) into U+FFFD, so the input here has none.
      const messages: Message[] = [
        user(`${odd}\ud800`),
        {
          role: "assistant",
          content: odd,
          toolCalls: [{ id: "c\u0000", name: "t", arguments: '{"x":1e300}' }],
        },
      ];
      await store.createRun({ ...newRun("r\u00e9", messages), input: odd });
      const run = await store.loadRun("r\u00e9");
      expect(run.messages).toEqual(messages);
      expect(run.input).toBe(odd);
      expect((await store.listRuns())[0]?.input).toBe(odd);
    });

    it("stores a turn's calls one row each: a checkpoint of changes rewrites only those, in place", async () => {
      await store.createRun(newRun("r1", [user("hi")]));
      const call = (id: string) => ({ id, name: "t", arguments: "{}" });
      const base = {
        persisted: 1,
        messages: [user("hi")],
        usage: emptyUsage(false),
        status: "running" as const,
      };
      const queued = ["a", "b", "c"].map((id) => ({ call: call(id), state: "queued" as const }));
      await store.checkpoint("r1", { ...base, progress: { pending: queued, guard: ["g1"] } });
      const done = {
        call: call("b"),
        state: "done" as const,
        outcome: { status: "ok" as const, content: "2" },
      };
      await store.checkpoint("r1", { ...base, progress: { pending: [done] }, progressMode: "calls" });
      let run = await store.loadRun("r1");
      expect(run.progress).toEqual({ pending: [queued[0], done, queued[2]], guard: ["g1"] });
      // A full progress replaces the list (a new turn); a changed guard is written with the changes.
      await store.checkpoint("r1", {
        ...base,
        progress: { pending: [], guard: ["g2"] },
        progressMode: "calls-and-rest",
      });
      await store.checkpoint("r1", { ...base, progress: { pending: [queued[2]!], guard: ["g2"] } });
      run = await store.loadRun("r1");
      expect(run.progress).toEqual({ pending: [queued[2]], guard: ["g2"] });
    });

    it("refuses a checkpoint that does not continue the stored transcript, and any write after the end", async () => {
      await store.createRun(newRun("r1", [user("hi")]));
      const cp = {
        persisted: 0,
        messages: [user("hi")],
        usage: emptyUsage(false),
        progress: { pending: [] },
        status: "running" as const,
      };
      const ahead = {
        ...cp,
        messages: [user("hi"), answer("x")],
        progress: { pending: [{ call: { id: "c", name: "t", arguments: "{}" }, state: "queued" as const }] },
      };
      await expect(store.checkpoint("r1", ahead)).rejects.toMatchObject({ code: "checkpoint_mismatch" });
      // A refused checkpoint wrote nothing: not its messages, not its calls.
      expect((await store.loadRun("r1")).messages).toEqual([user("hi")]);
      expect((await store.loadRun("r1")).progress.pending).toEqual([]);
      await expect(store.checkpoint("nope", { ...cp, persisted: 1 })).rejects.toBeInstanceOf(UnknownRunError);
      await store.finishRun("r1", {
        persisted: 1,
        messages: [user("hi")],
        usage: emptyUsage(false),
        status: "ok",
      });
      await expect(store.checkpoint("r1", { ...cp, persisted: 1 })).rejects.toMatchObject({
        code: "run_ended",
      });
    });

    it("names the database for an unknown run and refuses to resume a finished one", async () => {
      await expect(store.loadRun("nope")).rejects.toBeInstanceOf(UnknownRunError);
      await expect(store.loadRun("nope")).rejects.toThrow(backend.location());
      await store.createRun(newRun("r1", [user("hi")]));
      await store.finishRun("r1", {
        persisted: 1,
        messages: [user("hi")],
        usage: emptyUsage(false),
        status: "failed",
      });
      await expect(store.claimRun("r1", currentOwner())).rejects.toBeInstanceOf(RunNotResumableError);
      await expect(store.claimRun("r1", currentOwner())).rejects.toThrow(/already ended \(failed\)/);
    });

    it("lists runs newest first, filtered by status and session", async () => {
      await store.createRun(newRun("r1", [user("hi")]));
      await new Promise((r) => setTimeout(r, 2));
      await store.lockSession("s", "r2");
      await store.createRun(newRun("r2", [user("hi")], { sessionId: "s", base: 0, version: 0 }));
      expect((await store.listRuns()).map((r) => r.runId)).toEqual(["r2", "r1"]);
      expect((await store.listRuns({ sessionId: "s" })).map((r) => r.runId)).toEqual(["r2"]);
      expect(await store.listRuns({ status: "ok" })).toEqual([]);
      expect(await store.listRuns({ limit: 1 })).toHaveLength(1);
    });

    it("claims a run with a compare-and-set: a claim that read an older state loses with RunBusyError", async () => {
      await store.createRun({
        ...newRun("r1", [user("hi")]),
        owner: { pid: 2_147_483_000, host: currentOwner().host },
      });
      const read = await store.loadRun("r1");
      const other = { pid: 2_147_483_001, host: currentOwner().host };
      await store.claimRun("r1", other, { status: read.status, updatedAt: read.updatedAt - 1 }).then(
        () => expect.unreachable("a stale claim must lose"),
        (error: unknown) => expect(error).toBeInstanceOf(RunBusyError),
      );
      const claimed = await store.claimRun("r1", currentOwner(), {
        status: read.status,
        updatedAt: read.updatedAt,
      });
      expect(claimed.owner).toEqual(currentOwner());
      expect(claimed.status).toBe("running");
      expect(claimed.updatedAt).toBeGreaterThan(read.updatedAt);
    });

    it("a lease on another host decides: held while it lasts, claimable once it ran out, not 15 minutes later", async () => {
      const far = { pid: 4_242, host: "another-host.example" };
      await store.createRun({
        ...newRun("r1", [user("hi")]),
        owner: { ...far, leaseUntil: Date.now() + 60_000 },
      });
      // Checkpointed a moment ago by a live lease: refused, as the run's driver still holds it.
      await expect(store.claimRun("r1", currentOwner())).rejects.toBeInstanceOf(RunBusyError);
      expect(await store.renewLeases?.(["r1"], far, Date.now() - 1)).toEqual(["r1"]);
      // The lease ran out: claimed at once, though the run was written within the last 15 minutes.
      const claimed = await store.claimRun("r1", currentOwner(Date.now() + 60_000));
      expect(claimed.owner.host).toBe(currentOwner().host);
      expect(claimed.owner.leaseUntil).toBeGreaterThan(Date.now());
      // The old owner no longer renews it: its driver learns it lost the run.
      expect(await store.renewLeases?.(["r1"], far, Date.now() + 60_000)).toEqual([]);
    });

    it("fences: a write with the token of a claim another process took over is refused, and nothing is stored", async () => {
      const first = { pid: 2_147_483_000, host: "host-a.example" };
      await store.createRun({
        ...newRun("r1", [user("hi")]),
        owner: { ...first, leaseUntil: Date.now() - 1 },
      });
      expect((await store.loadRun("r1")).fence).toBe(0);
      const claimed = await store.claimRun("r1", { pid: 2_147_483_001, host: "host-b.example" });
      expect(claimed.fence).toBe(1);
      const late = {
        persisted: 1,
        messages: [user("hi"), answer("from the paused process")],
        usage: emptyUsage(false),
        progress: { pending: [] },
        status: "running" as const,
      };
      await expect(store.checkpoint("r1", { ...late, fence: 0 })).rejects.toMatchObject({
        code: "run_fenced",
      });
      await expect(
        store.finishRun("r1", {
          persisted: 1,
          messages: late.messages,
          usage: late.usage,
          status: "failed",
          fence: 0,
        }),
      ).rejects.toMatchObject({ code: "run_fenced" });
      expect((await store.loadRun("r1")).messages).toEqual([user("hi")]);
      await store.checkpoint("r1", { ...late, messages: [user("hi"), answer("from the claimer")], fence: 1 });
      expect((await store.loadRun("r1")).messages.at(-1)).toEqual(answer("from the claimer"));
    });

    it("a released run is claimable at once and its releaser's writes are refused", async () => {
      const me = currentOwner(Date.now() + 60_000);
      await store.createRun({
        ...newRun("r1", [user("hi")]),
        owner: { pid: 2_147_483_000, host: "host-a.example", leaseUntil: Date.now() + 60_000 },
      });
      expect(await store.releaseRun?.("r1", { pid: 2_147_483_001, host: "host-a.example" })).toBe(false);
      expect(await store.releaseRun?.("r1", { pid: 2_147_483_000, host: "host-a.example" })).toBe(true);
      const stored = await store.loadRun("r1");
      expect(stored.status).toBe("running");
      await expect(
        store.checkpoint("r1", {
          persisted: 1,
          messages: [user("hi"), answer("late")],
          usage: emptyUsage(false),
          progress: { pending: [] },
          status: "running",
          fence: 0,
        }),
      ).rejects.toMatchObject({ code: "run_fenced" });
      const claimed = await store.claimRun("r1", me, { status: stored.status, updatedAt: stored.updatedAt });
      expect(claimed.fence).toBe(2);
      expect(claimed.messages).toEqual([user("hi")]);
    });
  });

  describe("sessions", () => {
    it("locks, saves atomically with the run, forks and deletes", async () => {
      const snap = await store.lockSession("alice", "r1");
      expect(snap).toMatchObject({ messages: [], version: 0 });
      await store.createRun(newRun("r1", [user("one")], { sessionId: "alice", base: 0, version: 0 }));
      const messages = [user("one"), answer("1")];
      await store.finishRun("r1", { persisted: 1, messages, usage: emptyUsage(false), status: "ok" });
      expect(await store.readSession("alice")).toEqual(messages);
      const [info] = await store.listSessions();
      expect(info).toMatchObject({ sessionId: "alice", messageCount: 2 });
      expect(info?.lockedBy).toBeUndefined();
      expect(await store.lockSession("alice", "r2")).toMatchObject({ messages, version: 1 });
      await store.unlockSession("alice", "r2");

      await store.forkSession("alice", "bob", { messages: 1 });
      expect(await store.readSession("bob")).toEqual([user("one")]);
      await expect(store.forkSession("alice", "bob")).rejects.toMatchObject({ code: "session_exists" });
      await store.deleteSession("alice");
      await expect(store.readSession("alice")).rejects.toBeInstanceOf(UnknownSessionError);
      expect((await store.listSessions()).map((s) => s.sessionId)).toEqual(["bob"]);
    });

    it("refuses a run that did not lock the session, and a save after the session changed", async () => {
      await expect(
        store.createRun(newRun("r1", [user("one")], { sessionId: "s", base: 0, version: 0 })),
      ).rejects.toMatchObject({
        code: "session_not_locked",
      });
      await store.lockSession("s", "r1");
      await store.createRun(newRun("r1", [user("one")], { sessionId: "s", base: 0, version: 0 }));
      await store.unlockSession("s", "r1");
      const end = {
        persisted: 1,
        messages: [user("one"), answer("1")],
        usage: emptyUsage(false),
        status: "ok" as const,
      };
      await expect(store.finishRun("r1", end)).rejects.toMatchObject({ code: "session_conflict" });
      // The end was not written either: the run is still open, its transcript as it was.
      expect((await store.loadRun("r1")).messages).toEqual([user("one")]);
    });

    it("refuses a second run while a live run holds the session", async () => {
      await store.lockSession("alice", "r1");
      await store.createRun(newRun("r1", [user("one")], { sessionId: "alice", base: 0, version: 0 }));
      const done = markActive("r1");
      try {
        await expect(store.lockSession("alice", "r2")).rejects.toBeInstanceOf(SessionBusyError);
        await expect(store.lockSession("alice", "r2")).rejects.toMatchObject({
          holderState: "live",
          holderRunId: "r1",
        });
        expect((await store.listSessions())[0]?.lockedBy).toBe("r1");
      } finally {
        done();
      }
      // The holder is no longer driven by anyone: the session reports an interrupted run.
      await expect(store.lockSession("alice", "r2")).rejects.toMatchObject({ holderState: "interrupted" });
      await expect(store.deleteSession("alice")).rejects.toBeInstanceOf(SessionBusyError);
      await store.discardRun("r1");
      await expect(store.lockSession("alice", "r2")).resolves.toMatchObject({ version: 0 });
    });

    it("refuses a fork that would separate a tool call from its result", async () => {
      await store.lockSession("s", "r1");
      const messages: Message[] = [
        user("go"),
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "t", arguments: "{}" }] },
        { role: "tool", toolCallId: "c1", toolName: "t", content: "ok" },
      ];
      await store.createRun(newRun("r1", [user("go")], { sessionId: "s", base: 0, version: 0 }));
      await store.finishRun("r1", { persisted: 1, messages, usage: emptyUsage(false), status: "ok" });
      await expect(store.forkSession("s", "t", { messages: 2 })).rejects.toThrow(/separate tool call c1/);
    });
  });

  describe("notes", () => {
    it("finds the right note in the top 3 with full-text search, within its scope only", async () => {
      const corpus = [
        "Alice prefers window seats on long flights",
        "The quarterly report is due on the first Monday of April",
        "Alice is allergic to peanuts; never book restaurants with peanut dishes",
        "Bob's favourite programming language is OCaml",
        "The office wifi password rotates every month",
        "Deploys to production happen on Tuesdays and Thursdays",
        "Alice's manager is Carol, who approves travel",
        "The staging database is refreshed nightly from production",
      ];
      for (const text of corpus) await store.addNote({ scope: "user:alice", text });
      await store.addNote({ scope: "user:bob", text: "Bob is allergic to cats" });
      const hits = await store.searchNotes("user:alice", "Which foods is she allergic to?", 3);
      expect(hits.slice(0, 3).map((h) => h.text)).toContain(corpus[2]);
      expect(hits.every((h) => h.scope === "user:alice")).toBe(true);
      const deploy = await store.searchNotes("user:alice", "when do we deploy", 3);
      expect(deploy[0]?.text).toBe(corpus[5]);
      expect(deploy[0]?.score).toBeGreaterThan(0);
      expect(await store.searchNotes("user:alice", "   ", 3)).toEqual([]);
      // A query of function words only still searches them rather than finding nothing.
      expect((await store.searchNotes("user:alice", "the", 3)).map((h) => h.text)).toContain(corpus[1]);
      // Query syntax in the text is only words to search for.
      expect(await store.searchNotes("user:alice", "peanut' | !(&:* <->", 3)).toHaveLength(1);
    });

    it("ranks by cosine similarity among notes of the same embedding model", async () => {
      const v = (...xs: number[]) => new Float32Array(xs);
      await store.addNote({
        scope: "s",
        text: "x axis",
        embedding: v(1, 0, 0),
        embeddingModel: "m",
        metadata: { k: 1 },
      });
      await store.addNote({ scope: "s", text: "y axis", embedding: v(0, 2, 0), embeddingModel: "m" });
      await store.addNote({ scope: "s", text: "other model", embedding: v(1, 0, 0), embeddingModel: "m2" });
      await store.addNote({ scope: "s", text: "other length", embedding: v(0, 1), embeddingModel: "m" });
      const hits = await store.nearestNotes("s", v(0.1, 1, 0), 5, "m");
      expect(hits.map((h) => h.text)).toEqual(["y axis", "x axis"]);
      expect(hits[0]?.score).toBeCloseTo(0.995, 2);
      expect(hits[1]?.metadata).toEqual({ k: 1 });
    });

    it("keeps vector search current across its own writes and another connection's", async () => {
      const other = await backend.open();
      const v = (...xs: number[]) => new Float32Array(xs);
      const near = async (s: Store) => (await s.nearestNotes("s", v(0, 0, 1), 1, "m"))[0]?.text;
      await store.addNote({ scope: "s", text: "x", embedding: v(1, 0, 0), embeddingModel: "m" });
      expect(await near(store)).toBe("x");
      const own = await store.addNote({
        scope: "s",
        text: "z mine",
        embedding: v(0, 0, 1),
        embeddingModel: "m",
      });
      expect(await near(store)).toBe("z mine");
      await store.deleteNote("s", own.id);
      expect(await near(store)).toBe("x");
      await other.addNote({ scope: "s", text: "z theirs", embedding: v(0, 0.1, 1), embeddingModel: "m" });
      expect(await near(store)).toBe("z theirs");
    });
  });
});
