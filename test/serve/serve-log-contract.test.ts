/**
 * The serve log's contract, on both logs (SQLite files, a fresh Postgres schema): what a record
 * holds after a round trip, the atomic steps two server processes may race on (claiming a chat,
 * deciding approvals, taking a run over), and, where the log has them, notices between processes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LeaseLostError, type LogEntry } from "../../src/serve/index.js";
import type { ServeLog, ServeNotice } from "../../src/serve/serve-log.js";
import { SERVE_BACKENDS } from "./harness.js";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const usage = {
  inputTokens: 3,
  outputTokens: 4,
  totalTokens: 7,
  requests: 1,
  toolCalls: 0,
  costUsd: 0.5,
} as unknown as Parameters<ServeLog["setRunStatus"]>[2];

for (const backend of SERVE_BACKENDS)
  describe.skipIf(backend.skip !== undefined)(`the serve log contract (${backend.name})`, () => {
    /** Two connections to one fresh database, as two server processes would hold. */
    async function two(): Promise<[ServeLog, ServeLog]> {
      const place = await backend.fresh();
      const a = await place.open();
      const b = await place.open();
      closers.push(a.close, b.close);
      return [a.log, b.log];
    }

    const newRun = (runId: string, extra: Partial<Parameters<ServeLog["createRun"]>[0]> = {}) => ({
      runId,
      principal: "alice",
      chatId: "c1",
      agent: "support",
      model: "test:model",
      input: "hello",
      ...extra,
    });

    it("round-trips chats, runs with their turn and driver, items and approvals, any text included", async () => {
      const [log, other] = await two();
      const odd = "NUL \u0000, emoji 🙂, quote \" and backslash \\ and 'x'";
      const chat = await log.ensureChat({ principal: "alice", chatId: "c1", agent: "support", title: odd });
      expect(chat).toMatchObject({ principal: "alice", chatId: "c1", agent: "support", title: odd });
      // A second ensure keeps the first agent and title.
      expect((await other.ensureChat({ ...chat, agent: "other", title: "x" })).agent).toBe("support");
      await log.createRun(
        newRun("r1", {
          input: odd,
          session: "serve:alice:c1",
          sessionStart: 2,
          attachments: [{ mediaType: "image/png", filename: "a.png" }],
          driver: "host/1/abc",
          leaseUntil: 1_000,
        }),
      );
      const run = await other.getRun("r1");
      expect(run).toMatchObject({
        runId: "r1",
        input: odd,
        status: "running",
        session: "serve:alice:c1",
        sessionStart: 2,
        attachments: [{ mediaType: "image/png", filename: "a.png" }],
        driver: "host/1/abc",
        leaseUntil: 1_000,
        lastSeq: -1,
      });
      const items: LogEntry[] = [
        { seq: 0, item: { kind: "part_start", part: "p", partKind: "text" } },
        {
          seq: 1,
          item: {
            kind: "event",
            part: "p",
            event: { type: "text_delta", runId: "r1", time: 1, step: 1, text: odd },
          },
        } as LogEntry,
        { seq: 2, item: { kind: "part_end", part: "p", partKind: "text" } },
      ];
      await log.append("r1", items.slice(0, 2));
      await log.append("r1", items.slice(2));
      expect(await other.read("r1", -1, 10)).toEqual(items);
      expect(await other.read("r1", 0, 1)).toEqual([items[1]]);
      expect((await other.getRun("r1"))?.lastSeq).toBe(2);
      await log.setRunStatus("r1", "ok", usage);
      expect(await other.getRun("r1")).toMatchObject({ status: "ok", usage });
      // Usage is kept when a later status change brings none.
      await log.setRunStatus("r1", "failed");
      expect((await other.getRun("r1"))?.usage).toEqual(usage);

      await log.addApprovals("r1", [
        {
          approvalId: "a1",
          toolCallId: "t1",
          toolName: "refund",
          input: { note: odd },
          validated: `{"note":"x"}`,
        },
        { approvalId: "a2", toolCallId: "t2", toolName: "refund", input: [1, 2], validated: odd },
      ]);
      expect(await other.getApproval("a1")).toEqual({
        approvalId: "a1",
        runId: "r1",
        toolCallId: "t1",
        toolName: "refund",
        input: { note: odd },
        validated: `{"note":"x"}`,
      });
      expect((await other.openApprovals("r1")).map((a) => [a.approvalId, a.validated])).toEqual([
        ["a1", `{"note":"x"}`],
        ["a2", odd],
      ]);
    });

    it("lists a principal's chats newest first and a chat's runs in the order they were made", async () => {
      const [log] = await two();
      await log.ensureChat({ principal: "alice", chatId: "c1", agent: "a", title: "one" });
      await log.ensureChat({ principal: "alice", chatId: "c2", agent: "a", title: "two" });
      await log.ensureChat({ principal: "bob", chatId: "c1", agent: "a", title: "bob's" });
      await log.claimChat("alice", "c1", "r0");
      expect((await log.listChats("alice", 10)).map((c) => c.chatId)[0]).toBe("c1");
      for (const id of ["r1", "r2", "r3"]) await log.createRun(newRun(id));
      expect((await log.listChatRuns("alice", "c1")).map((r) => r.runId)).toEqual(["r1", "r2", "r3"]);
      expect(await log.listChatRuns("bob", "c1")).toEqual([]);
      expect(await log.countActiveRuns("alice")).toBe(3);
      await log.setRunStatus("r2", "ok");
      expect((await log.listRunning()).map((r) => r.runId)).toEqual(["r1", "r3"]);
      await log.deleteChat("alice", "c2");
      expect(await log.getChat("alice", "c2")).toBeUndefined();
    });

    it("lists a principal's runs of an agent by last update, filtered and paged, with the total", async () => {
      const [log] = await two();
      for (const [id, agent, chatId] of [
        ["r1", "support", "c1"],
        ["r2", "support", "c2"],
        ["r3", "other", "c1"],
        ["r4", "support", "c1"],
      ] as const)
        await log.createRun(newRun(id, { agent, chatId }));
      await log.createRun({ ...newRun("r5"), principal: "bob" });
      await log.setRunStatus("r2", "ok");
      await log.setRunStatus("r1", "ok");
      const base = { principal: "alice", agent: "support", limit: 10 };
      const all = await log.listRuns(base);
      expect(all.total).toBe(3);
      expect(all.runs.map((r) => r.runId).sort()).toEqual(["r1", "r2", "r4"]);
      // Newest update first; ties by run id, descending.
      const order = all.runs.map((r) => [r.updatedAt, r.runId] as const);
      expect(order).toEqual([...order].sort((x, y) => y[0] - x[0] || (y[1] < x[1] ? -1 : 1)));
      expect((await log.listRuns({ ...base, statuses: ["ok"] })).runs.map((r) => r.runId).sort()).toEqual([
        "r1",
        "r2",
      ]);
      expect(await log.listRuns({ ...base, statuses: [] })).toEqual({ runs: [], total: 0 });
      expect((await log.listRuns({ ...base, chatId: "c1" })).total).toBe(2);
      const first = await log.listRuns({ ...base, limit: 2 });
      const last = first.runs.at(-1) as { updatedAt: number; runId: string };
      const next = await log.listRuns({
        ...base,
        limit: 2,
        after: { updatedAt: last.updatedAt, runId: last.runId },
      });
      expect(next.total).toBe(3);
      expect([...first.runs, ...next.runs].map((r) => r.runId)).toEqual(all.runs.map((r) => r.runId));
      expect((await log.listRuns({ ...base, updatedSince: Date.now() + 60_000 })).total).toBe(0);
    });

    it("one of two processes claiming a chat at once wins; only the holder frees it", async () => {
      const [a, b] = await two();
      await a.ensureChat({ principal: "alice", chatId: "c1", agent: "a", title: "t" });
      const won = await Promise.all([a.claimChat("alice", "c1", "ra"), b.claimChat("alice", "c1", "rb")]);
      expect(won.filter(Boolean)).toHaveLength(1);
      const holder = won[0] ? "ra" : "rb";
      await a.releaseChat("alice", "c1", holder === "ra" ? "rb" : "ra");
      expect((await b.getChat("alice", "c1"))?.activeRun).toBe(holder);
      // The holder may hand the chat to its next run (a regenerate), naming itself.
      expect(await b.claimChat("alice", "c1", "rc", holder)).toBe(true);
      await a.releaseChat("alice", "c1", "rc");
      expect((await b.getChat("alice", "c1"))?.activeRun).toBeUndefined();
    });

    it("decisions are all or none: racing processes decide once, a batch with a decided approval writes nothing", async () => {
      const [a, b] = await two();
      await a.createRun(newRun("r1"));
      await a.addApprovals("r1", [
        { approvalId: "x", toolCallId: "t1", toolName: "f", input: {}, validated: "{}" },
        { approvalId: "y", toolCallId: "t2", toolName: "f", input: {}, validated: "{}" },
      ]);
      const both = [
        { approvalId: "x", approved: true },
        { approvalId: "y", approved: false, reason: "no" },
      ];
      const results = await Promise.all([a.decide(both), b.decide(both)]);
      expect(results.sort()).toEqual([false, true]);
      expect((await a.getApproval("y"))?.decided).toMatchObject({ approved: false, reason: "no" });
      expect(await a.openApprovals("r1")).toEqual([]);

      await a.addApprovals("r1", [
        { approvalId: "z", toolCallId: "t3", toolName: "f", input: {}, validated: "{}" },
      ]);
      expect(
        await b.decide([
          { approvalId: "z", approved: true },
          { approvalId: "x", approved: false },
        ]),
      ).toBe(false);
      expect((await a.getApproval("z"))?.decided).toBeUndefined();
      expect((await a.getApproval("x"))?.decided?.approved).toBe(true);
    });

    it("a run is taken over only from the driver expected, once; leases renew and carry cancel requests", async () => {
      const [a, b] = await two();
      await a.createRun(newRun("r1", { driver: "dead", leaseUntil: 1 }));
      await a.createRun(newRun("r2", { driver: "me", leaseUntil: 1 }));
      const took = await Promise.all([
        a.takeOverRun("r1", "a", 5_000, "dead"),
        b.takeOverRun("r1", "b", 5_000, "dead"),
      ]);
      expect(took.filter(Boolean)).toHaveLength(1);
      const winner = took[0] ? "a" : "b";
      expect((await a.getRun("r1"))?.driver).toBe(winner);
      expect(await a.takeOverRun("r1", "c", 5_000, "dead")).toBe(false);

      await a.createRun(newRun("r3", { driver: "me", leaseUntil: 1 }));
      expect(await b.renewLeases("me", 9_000, ["r2"])).toEqual({ cancelled: [], lost: [] });
      expect((await a.getRun("r2"))?.leaseUntil).toBe(9_000);
      // A run whose drive stopped here is not renewed: its lease runs out and anyone may take it.
      expect((await a.getRun("r3"))?.leaseUntil).toBe(1);
      await a.requestCancel("r2");
      expect(await b.renewLeases("me", 9_500)).toEqual({ cancelled: ["r2"], lost: [] });
      // A run waiting for approval is not driven: nothing to renew, nothing to cancel there.
      await a.setRunStatus("r2", "awaiting_approval");
      expect(await b.renewLeases("me", 9_900)).toEqual({ cancelled: [], lost: [] });
      // The run the loser thought it drove is reported lost, so it stops driving it.
      expect(await b.renewLeases(took[0] ? "b" : "a", 9_900, ["r1"])).toEqual({
        cancelled: [],
        lost: ["r1"],
      });
      await b.driveRun("r2", "other", 12_000);
      expect(await a.getRun("r2")).toMatchObject({ status: "running", driver: "other", leaseUntil: 12_000 });
      expect((await a.getRun("r2"))?.cancelRequested).toBeUndefined();
    });

    it("fences a driver that lost its run: its appends, approvals, status and chat release are refused; a released run is taken at once", async () => {
      const [a, b] = await two();
      await a.ensureChat({ principal: "p", chatId: "c", agent: "x", title: "t" });
      await a.createRun(newRun("r1", { driver: "old", leaseUntil: 1 }));
      expect(await a.claimChat("p", "c", "r1")).toBe(true);
      await a.append("r1", [{ seq: 0, item: { kind: "resumed", reason: "restart" } }], "old");
      expect(await b.takeOverRun("r1", "new", Date.now() + 5_000, "old")).toBe(true);
      // The old driver wakes up (a pause, a long GC) and writes on: nothing of it lands.
      await expect(
        a.append("r1", [{ seq: 1, item: { kind: "resumed", reason: "restart" } }], "old"),
      ).rejects.toBeInstanceOf(LeaseLostError);
      await expect(
        a.addApprovals(
          "r1",
          [{ approvalId: "stale", toolCallId: "t", toolName: "f", input: {}, validated: "{}" }],
          "old",
        ),
      ).rejects.toBeInstanceOf(LeaseLostError);
      await a.releaseChat("p", "c", "r1", "old");
      await a.setRunStatus("r1", "failed", undefined, "old");
      expect(await a.getRun("r1")).toMatchObject({ status: "running", driver: "new", lastSeq: 0 });
      expect((await a.getChat("p", "c"))?.activeRun).toBe("r1");
      expect(await a.getApproval("stale")).toBeUndefined();
      expect(await a.read("r1", -1, 10)).toHaveLength(1);
      // The new driver numbers on from the log and writes.
      await b.append("r1", [{ seq: 1, item: { kind: "resumed", reason: "restart" } }], "new");
      expect(await a.releaseRun("r1", "old")).toBe(false);
      expect(await b.releaseRun("r1", "new")).toBe(true);
      const released = await a.getRun("r1");
      expect(released).toMatchObject({ status: "running", lastSeq: 1, leaseUntil: 0 });
      expect(released?.driver).toBeUndefined();
      await expect(
        b.append("r1", [{ seq: 2, item: { kind: "resumed", reason: "restart" } }], "new"),
      ).rejects.toBeInstanceOf(LeaseLostError);
      expect(await a.takeOverRun("r1", "next", Date.now() + 5_000, undefined)).toBe(true);
    });

    it("tells other processes about appends, status changes and cancel requests when it can", async () => {
      const [a, b] = await two();
      if (!b.subscribe) return; // SQLite: other processes poll; nothing to announce.
      const heard: ServeNotice[] = [];
      const stop = await b.subscribe((notice) => heard.push(notice));
      await a.createRun(newRun("r1"));
      await a.append("r1", [{ seq: 0, item: { kind: "resumed", reason: "restart" } }]);
      await a.requestCancel("r1");
      await a.setRunStatus("r1", "aborted");
      const until = Date.now() + 5_000;
      while (heard.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      expect(heard).toEqual([
        { kind: "items", runId: "r1" },
        { kind: "cancel", runId: "r1" },
        { kind: "items", runId: "r1" },
      ]);
      // Another schema on the same server is another log: its notices are not ours.
      const elsewhere = await two();
      await elsewhere[0].createRun(newRun("r9"));
      await elsewhere[0].append("r9", [{ seq: 0, item: { kind: "resumed", reason: "restart" } }]);
      await a.append("r1", [{ seq: 1, item: { kind: "resumed", reason: "restart" } }]);
      while (heard.length < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      expect(heard.map((n) => n.runId)).toEqual(["r1", "r1", "r1", "r1"]);
      await stop();
    });
  });
