/**
 * A tool's question in a run on a scale-out worker, over HTTP: the worker's run waits for the
 * person (DBOS), the server shows the question in the stream as plain serve does, and an answer
 * POSTed to any server goes to exactly that wait. The same checks as plain serve: only the run's
 * owner answers, an answer is spent once, it must fit the form, and a hostile model that calls
 * the tool again cannot spend it a second time. A run cancelled while its question waits ends at
 * once, and its worker then stops promptly (a waiting DBOS recv sees the cancel within a second).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ScaleClient } from "../../src/scale/index.js";
import { PostgresServeLog } from "../../src/serve/postgres-serve-log.js";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import { freshDatabase, type TestWorker } from "../scale/scale-harness.js";
import scaleModule from "./fixtures/scale-module.js";
import { ALICE, BOB, parseSse, type Served, served } from "./harness.js";
import { chunksOf, prepareScaleWorkers, type SseEvent, spawnScaleWorker, textOf } from "./scale-workers.js";

const alice = { authorization: `Bearer ${ALICE}`, "content-type": "application/json" };
const bob = { authorization: `Bearer ${BOB}`, "content-type": "application/json" };
const send = (chatId: string, text: string) =>
  JSON.stringify({
    id: chatId,
    agent: "bank",
    messages: [{ id: `u-${chatId}`, role: "user", parts: [{ type: "text", text }] }],
  });

const finishOf = (events: SseEvent[]) =>
  chunksOf(events)
    .filter((c) => c.type === "finish")
    .at(-1) as { messageMetadata?: { status?: string } } | undefined;

/** The question chunks of a stream (`data-glassloop-question`). */
const questionsOf = (events: SseEvent[]) =>
  chunksOf(events).filter((c) => c.type === "data-glassloop-question") as unknown as {
    id: string;
    data: { questionId: string; toolCallId: string; toolName: string; source: string; message: string };
  }[];

describe.skipIf(POSTGRES_SKIP)("a tool's question in a run on a scale-out worker, over HTTP", () => {
  let url: string;
  let worker: TestWorker;
  let client: ScaleClient;
  let a: Served;
  let b: Served;
  const paid = join(mkdtempSync(join(tmpdir(), "glassloop-serve-scale-q-")), "paid.log");
  const payments = () =>
    readFileSync(paid, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { call: string; amount: number });

  const server = async () => {
    const log = await PostgresServeLog.connect({ url });
    const store = new SqliteStore({ path: ":memory:" });
    return served(
      { agents: scaleModule.agents, scale: { client, pollMs: 30 }, leaseMs: 1_000 },
      store,
      log,
      async () => {
        await log.close();
        store.close();
      },
    );
  };

  /** Starts a turn on `s` and reads its stream to the pause (or the end). */
  const ask = async (s: Served, chatId: string, text: string) => {
    const res = await s.fetch("/api/chat", { method: "POST", headers: alice, body: send(chatId, text) });
    expect(res.status).toBe(200);
    const runId = res.headers.get("x-glassloop-run-id") as string;
    return { runId, events: parseSse(await res.text()) };
  };

  const answer = (s: Served, runId: string, questionId: string, reply: unknown, who = alice) =>
    s.fetch(`/api/runs/${runId}/answers`, {
      method: "POST",
      headers: who,
      body: JSON.stringify({ answers: [{ questionId, answer: reply }] }),
    });

  /** The stream of `runId` after `after` (to its next pause or its end). */
  const rest = async (s: Served, runId: string, after: number) =>
    parseSse(
      await (
        await s.fetch(`/api/runs/${runId}/stream`, {
          headers: { ...alice, "last-event-id": `${runId}/${after}` },
        })
      ).text(),
    );

  const accept = { action: "accept", content: { ok: true } };

  beforeAll(async () => {
    writeFileSync(paid, "");
    await prepareScaleWorkers();
    url = await freshDatabase();
    worker = spawnScaleWorker("wq", url, { SCALE_SERVE_PAID: paid, SCALE_SERVE_DELAY_MS: "5" });
    const { ScaleClient } = await import("../../src/scale/index.js");
    client = await ScaleClient.connect({ url, pollMs: 50 });
    a = await server();
    b = await server();
    await Promise.all([a.handler.ready, b.handler.ready, worker.ready]);
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await client?.close();
    worker?.child.kill("SIGKILL");
    await worker?.exited;
  });

  it("streams the worker's question with an opaque id; the owner's accepted answer, on the other server, resumes the run on its worker once", async () => {
    const { runId, events } = await ask(a, "q1", "pay please");
    expect(finishOf(events)?.messageMetadata?.status).toBe("awaiting_approval");
    const [question] = questionsOf(events);
    expect(question?.id).toMatch(/^ques_[A-Za-z0-9_-]{20,}$/);
    expect(question?.data).toMatchObject({
      questionId: question?.id,
      toolCallId: "call_p1",
      toolName: "pay",
      source: "bank",
      message: "Pay this?",
    });
    // The worker's run waits for the person (it did not fail the call), and nothing was paid.
    expect(await client.status(runId)).toBe("PENDING");
    expect(await client.questions(runId)).toHaveLength(1);
    expect(payments()).toEqual([]);
    const id = question?.id as string;

    // Refused, nothing sent: another caller (404, as a missing run), a forged id (404), the
    // approvals route given the question's id (404), an answer that does not fit the form (422).
    expect((await answer(b, runId, id, accept, bob)).status).toBe(404);
    expect((await answer(b, runId, "ques_forged00000000000000000", accept)).status).toBe(404);
    const asApproval = await b.fetch(`/api/runs/${runId}/approvals`, {
      method: "POST",
      headers: alice,
      body: JSON.stringify({ decisions: [{ approvalId: id, approved: true }] }),
    });
    expect(asApproval.status).toBe(404);
    for (const content of [{ ok: "yes" }, {}, { ok: true, admin: true }])
      expect(
        (await answer(b, runId, id, { action: "accept", content })).status,
        JSON.stringify(content),
      ).toBe(422);
    expect(await client.questions(runId)).toHaveLength(1);

    const res = await answer(b, runId, id, accept);
    expect(res.status).toBe(202);
    const { after } = (await res.json()) as { after: number };
    // Spent once: again, on either server, is a conflict.
    expect((await answer(a, runId, id, accept)).status).toBe(409);
    expect((await answer(b, runId, id, { action: "decline" })).status).toBe(409);
    const resumed = await rest(a, runId, after);
    expect(chunksOf(resumed).find((c) => c.type === "tool-output-available")).toMatchObject({
      toolCallId: "call_p1",
      output: "paid 10",
    });
    expect(textOf(resumed)).toBe("paid 10 ");
    expect(finishOf(resumed)?.messageMetadata?.status).toBe("ok");
    expect(payments()).toEqual([{ call: "call_p1", amount: 10 }]);
    expect((await client.result(runId)).status).toBe("ok");
    const run = (await (await a.fetch(`/api/runs/${runId}`, { headers: alice })).json()) as {
      status: string;
    };
    expect(run.status).toBe("ok");
  });

  it("a declined answer reaches the tool: it does not pay, and the run ends ok", async () => {
    const before = payments().length;
    const { runId, events } = await ask(b, "q2", "pay please");
    const [question] = questionsOf(events);
    const res = await answer(a, runId, question?.id as string, { action: "decline" });
    expect(res.status).toBe(202);
    const resumed = await rest(b, runId, ((await res.json()) as { after: number }).after);
    expect(textOf(resumed)).toBe("not paid (decline) ");
    expect(finishOf(resumed)?.messageMetadata?.status).toBe("ok");
    expect(payments()).toHaveLength(before);
  });

  for (const [label, text] of [
    ["a new call id", "pay again"],
    ["the answered call's id again", "pay again same"],
  ] as const)
    it(`a hostile model cannot spend the answer on a second call (${label}): the run pauses and asks again`, async () => {
      const before = payments();
      const { runId, events } = await ask(a, `q3-${text.length}`, text);
      const [first] = questionsOf(events);
      const res = await answer(b, runId, first?.id as string, accept);
      expect(res.status).toBe(202);
      const next = await rest(a, runId, ((await res.json()) as { after: number }).after);
      // The small payment went through on the person's answer; the big one waits for its own.
      expect(finishOf(next)?.messageMetadata?.status).toBe("awaiting_approval");
      const [second] = questionsOf(next);
      expect(second?.data).toMatchObject({ toolName: "pay", message: "Pay this?" });
      expect(second?.id).not.toBe(first?.id);
      expect(payments()).toEqual([...before, { call: "call_p1", amount: 10 }]);
      // The first answer is spent: sent again, it is refused, and it moves nothing.
      expect((await answer(a, runId, first?.id as string, accept)).status).toBe(409);
      expect(await client.questions(runId)).toHaveLength(1);
      const declined = await answer(a, runId, second?.id as string, { action: "decline" });
      expect(declined.status).toBe(202);
      const end = await rest(b, runId, ((await declined.json()) as { after: number }).after);
      expect(textOf(end)).toBe("paid 10, not paid (decline) ");
      expect(finishOf(end)?.messageMetadata?.status).toBe("ok");
      expect(payments()).toEqual([...before, { call: "call_p1", amount: 10 }]);
    });

  it("a run cancelled while its question waits ends aborted at once, the answer is refused, and the worker then stops promptly (one cancelled while it waited for approval too)", async () => {
    const before = payments().length;
    // A run of the same worker waiting for approval, cancelled too.
    const refund = await a.fetch("/api/chat", {
      method: "POST",
      headers: alice,
      body: JSON.stringify({
        id: "q4r",
        agent: "support",
        messages: [{ id: "u-q4r", role: "user", parts: [{ type: "text", text: "refund order A" }] }],
      }),
    });
    const refundId = refund.headers.get("x-glassloop-run-id") as string;
    expect(finishOf(parseSse(await refund.text()))?.messageMetadata?.status).toBe("awaiting_approval");
    const refundCancel = await a.fetch(`/api/runs/${refundId}/cancel`, { method: "POST", headers: alice });
    expect(((await refundCancel.json()) as { status: string }).status).toBe("aborted");
    const { runId, events } = await ask(a, "q4", "pay please");
    const [question] = questionsOf(events);
    const cancel = await b.fetch(`/api/runs/${runId}/cancel`, { method: "POST", headers: alice });
    expect(((await cancel.json()) as { status: string }).status).toBe("aborted");
    expect(await client.status(runId)).toBe("CANCELLED");
    expect((await answer(a, runId, question?.id as string, accept)).status).toBe(409);
    const replay = parseSse(await (await a.fetch(`/api/runs/${runId}/stream`, { headers: alice })).text());
    expect(finishOf(replay)?.messageMetadata?.status).toBe("aborted");
    // The worker's runs were in a DBOS recv: DBOS looks for a cancel there every 10 s, and a
    // worker stopping waits for its runs up to 10 s. Woken by the cancel, the run is gone within about a
    // second, and the worker with it (a generous bound: 10 s before the fix).
    const started = Date.now();
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(payments()).toHaveLength(before);
  }, 30_000);
});
