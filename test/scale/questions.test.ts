import type { ScaleClient, ScaleEvent, WaitingQuestion } from "glassloop/scale";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import type { WireServer } from "../helpers/wire-server.js";
import {
  effectsFile,
  readEffects,
  spawnWorker,
  startScaleSetup,
  type TestWorker,
  TIMING,
} from "./scale-harness.js";

describe.skipIf(POSTGRES_SKIP)("scale-out: a tool's question pauses the run until the person answers", () => {
  let url: string;
  let wire: WireServer;
  let client: ScaleClient;
  const workers: TestWorker[] = [];
  const effects = effectsFile("glassloop-scale-q-");

  const start = async (name: string) => {
    const worker = spawnWorker(name, { url, wireUrl: wire.url, effects });
    workers.push(worker);
    await Promise.race([
      worker.ready,
      new Promise((_, reject) =>
        setTimeout(
          () => reject(new Error(`worker ${name} not ready after 50 s: ${worker.stderr()}`)),
          50_000,
        ),
      ),
    ]);
    return worker;
  };

  beforeAll(async () => {
    ({ url, wire, client } = await startScaleSetup());
    await start("q1");
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    for (const w of workers) w.child.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
    await wire?.close();
  });

  /** The questions waiting in `runId`, once there are some (polled). */
  const waitingQuestions = async (runId: string): Promise<WaitingQuestion[]> => {
    for (;;) {
      const waiting = await client.questions(runId);
      if (waiting.length > 0) return waiting;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const effectsOf = (run: string, kind: "asked" | "answered") =>
    readEffects(effects).filter((l) => l.run === run && l.kind === kind);

  const collect = async (events: AsyncIterable<ScaleEvent>) => {
    const all: ScaleEvent[] = [];
    for await (const e of events) all.push(e);
    return all;
  };

  it("pauses on the question, refuses answers that do not fit or name another call, and the answer resumes the call: its result reaches the model", async () => {
    const handle = await client.enqueue("billing", "run qa: ask me");
    const [waiting] = await waitingQuestions(handle.runId);
    expect(waiting).toMatchObject({
      runId: handle.runId,
      toolCallId: "q_qa",
      toolName: "ask",
      question: { source: "desk", message: "Which account should be charged?" },
    });
    expect(effectsOf("qa", "asked")).toHaveLength(1);

    // Refused before anything is sent: a field too short, a field not asked for, a missing one,
    // another call's id; the run still waits with the same question.
    const refusals = [
      [{ toolCallId: "q_qa", answer: { action: "accept" as const, content: { account: "x" } } }],
      [{ toolCallId: "q_qa", answer: { action: "accept" as const, content: { account: "acme", pin: "1" } } }],
      [{ toolCallId: "q_qa", answer: { action: "accept" as const, content: {} } }],
      [{ toolCallId: "q_other", answer: { action: "decline" as const } }],
      [],
    ];
    for (const answers of refusals)
      await expect(client.answer(handle.runId, answers)).rejects.toMatchObject({ code: "config" });
    expect(await client.questions(handle.runId)).toEqual([waiting]);
    expect(await client.status(handle.runId)).toBe("PENDING");

    // The question is in the run's events, where a follower shows it.
    const seen = await client.readEvents(handle.runId);
    expect(seen.map((e) => e.event)).toContainEqual(
      expect.objectContaining({ type: "question", toolCallId: "q_qa", toolName: "ask" }),
    );

    await client.answer(handle.runId, [
      { toolCallId: "q_qa", answer: { action: "accept", content: { account: "acme" } } },
    ]);
    const outcome = await handle.result();
    expect(outcome.status).toBe("ok");
    if (outcome.status !== "ok") return;
    expect(outcome.output).toBe("asked qa: account acme");
    expect(outcome.messages.filter((m) => m.role === "tool")).toEqual([
      expect.objectContaining({ toolCallId: "q_qa", content: "account acme" }),
    ]);
    // Asked once; the re-run call was answered from the record without asking again.
    expect(effectsOf("qa", "asked")).toHaveLength(1);
    expect(effectsOf("qa", "answered")).toHaveLength(1);
    expect(await client.questions(handle.runId)).toEqual([]);
    const events = (await collect(handle.events())).map((e) => e.event.type);
    expect(events.filter((t) => t === "question")).toHaveLength(1);
    expect(events.filter((t) => t === "tool_result")).toHaveLength(1);
  });

  it("refuses answers where no question waits, and one run's question cannot be answered through another run", async () => {
    const a = await client.enqueue("billing", "run qx: ask me");
    const b = await client.enqueue("billing", "run qy: ask me");
    await waitingQuestions(a.runId);
    const [bWaits] = await waitingQuestions(b.runId);
    // Run b's call, sent to run a: a does not wait for it.
    await expect(
      client.answer(a.runId, [{ toolCallId: bWaits?.toolCallId ?? "", answer: { action: "decline" } }]),
    ).rejects.toMatchObject({ code: "config" });
    // A run that asked nothing (it waits for an approval) refuses answers, and sends nothing.
    const refund = await client.enqueue("billing", "run qz: refund please");
    for (;;) {
      if ((await client.pending(refund.runId)).length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await expect(
      client.answer(refund.runId, [{ toolCallId: "r_qz", answer: { action: "decline" } }]),
    ).rejects.toMatchObject({ code: "question_not_waiting" });
    await client.approve(refund.runId, "r_qz", false);

    await client.answer(a.runId, [{ toolCallId: "q_qx", answer: { action: "decline" } }]);
    await client.answer(b.runId, [
      { toolCallId: "q_qy", answer: { action: "accept", content: { account: "beta" } } },
    ]);
    expect(await a.result()).toMatchObject({ status: "ok", output: "asked qx: no account (decline)" });
    expect(await b.result()).toMatchObject({ status: "ok", output: "asked qy: account beta" });
    expect((await refund.result()).status).toBe("ok");
  });

  it("a second, different question pauses again; both answers reach the call", async () => {
    const handle = await client.enqueue("billing", "run qtwice: ask me");
    const [first] = await waitingQuestions(handle.runId);
    await client.answer(handle.runId, [
      { toolCallId: "q_qtwice", answer: { action: "accept", content: { account: "acme" } } },
    ]);
    // The re-run call asks something else: the old answer is not sent to it, the run waits again.
    let second: WaitingQuestion | undefined;
    for (;;) {
      [second] = await client.questions(handle.runId);
      if (second && second.ticket !== first?.ticket) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(second.question.message).toBe("In which currency?");
    await expect(
      client.answer(handle.runId, [
        { toolCallId: "q_qtwice", answer: { action: "accept", content: { currency: "GBP" } } },
      ]),
    ).rejects.toMatchObject({ code: "config" });
    await client.answer(handle.runId, [
      { toolCallId: "q_qtwice", answer: { action: "accept", content: { currency: "EUR" } } },
    ]);
    expect(await handle.result()).toMatchObject({
      status: "ok",
      output: "asked qtwice: account acme in EUR",
    });
    expect(effectsOf("qtwice", "asked")).toHaveLength(2);
    expect(effectsOf("qtwice", "answered")).toHaveLength(1);
  });

  it("an MCP server's question (server-everything's elicitation) pauses the worker's run, and the server's re-asked question gets the answer", async () => {
    const handle = await client.enqueue("elicit", "run qm: elicit a name");
    const [waiting] = await waitingQuestions(handle.runId);
    expect(waiting).toMatchObject({
      toolCallId: "e_qm",
      toolName: "trigger-elicitation-request",
      question: { source: "everything", message: "Please provide inputs for the following fields:" },
    });
    await expect(
      client.answer(handle.runId, [
        { toolCallId: "e_qm", answer: { action: "accept", content: { name: 7 } } },
      ]),
    ).rejects.toMatchObject({ code: "config" });
    await client.answer(handle.runId, [
      {
        toolCallId: "e_qm",
        answer: {
          action: "accept",
          content: { name: "Ada Lovelace", check: true, email: "ada@example.com", integer: 7 },
        },
      },
    ]);
    const outcome = await handle.result();
    expect(outcome.status).toBe("ok");
    if (outcome.status !== "ok") return;
    expect(outcome.output).toContain("Ada Lovelace");
    expect(outcome.output).toContain("ada@example.com");
  });

  it('with questions: "fail" (a client that cannot show them) the asking call fails with a message the model reads, and nothing waits', async () => {
    const handle = await client.enqueue("billing", "run qf: ask me", { questions: "fail" });
    const outcome = await handle.result();
    expect(outcome.status).toBe("ok");
    expect(outcome.messages.filter((m) => m.role === "tool")).toEqual([
      expect.objectContaining({
        toolCallId: "q_qf",
        content: expect.stringContaining("desk asked the person a question, but this run cannot wait"),
      }),
    ]);
    expect(effectsOf("qf", "asked")).toHaveLength(1);
    expect(effectsOf("qf", "answered")).toHaveLength(0);
    expect(await client.questions(handle.runId)).toEqual([]);
  });

  it("survives a SIGKILL of its worker while the question waits: the recovered run still waits, the answer resumes it, the person was asked once", async () => {
    const victim = workers[0] as TestWorker;
    const handle = await client.enqueue("billing", "run qk: ask me");
    const [waiting] = await waitingQuestions(handle.runId);
    victim.child.kill("SIGKILL");
    await victim.exited;
    const heir = await start("q2");
    // Adopted by the new worker (after the lease ran out) and replayed up to the wait.
    const deadline = Date.now() + 10 * (TIMING.leaseMs + TIMING.adoptEveryMs);
    for (;;) {
      const [run] = await client.listRuns({ runIds: [handle.runId] });
      if (run?.worker === heir.name && run.status === "PENDING") break;
      if (Date.now() > deadline) throw new Error(`run not adopted: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Give the replay time to reach the wait: the tool is not run again, so nobody is asked again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(effectsOf("qk", "asked")).toHaveLength(1);
    expect(await client.questions(handle.runId)).toEqual([waiting]);
    await client.answer(handle.runId, [
      { toolCallId: "q_qk", answer: { action: "accept", content: { account: "kept" } } },
    ]);
    const outcome = await handle.result();
    expect(outcome).toMatchObject({ status: "ok", output: "asked qk: account kept" });
    expect(effectsOf("qk", "asked")).toHaveLength(1);
    expect(effectsOf("qk", "answered").map((l) => l.worker)).toEqual(["q2"]);
    const events = await collect(handle.events());
    expect(events.filter((e) => e.event.type === "question")).toHaveLength(1);
  }, 60_000);
});
