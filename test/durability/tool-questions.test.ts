/**
 * A tool's question for the person as a durable pause (QuestionAsked): the run is stored waiting,
 * the turn's other calls finish first and are not run again, the answer comes with resume, and the
 * call asked again gets it only for the very question that was answered.
 */
import { Agent, tool } from "glassloop";
import { SqliteStore } from "glassloop/store";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { InputRequiredError, type PersonQuestion, QuestionAsked } from "glassloop/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const QUESTION: PersonQuestion = {
  source: "booking",
  message: "Which seat?",
  schema: {
    type: "object",
    properties: {
      seat: { type: "string", enum: ["window", "aisle"] },
      count: { type: "integer", minimum: 1 },
    },
    required: ["seat"],
  },
};

/** A tool that asks `question()` (the question it asks on this run of the call) and books with the answer. */
function booking(question: () => PersonQuestion, runs: string[]) {
  return tool({
    name: "book",
    description: "Books a seat.",
    input: z.object({ flight: z.string() }),
    run: ({ flight }, options) => {
      runs.push(flight);
      const asked = question();
      const answer = options.answered?.(asked);
      if (!answer) throw new QuestionAsked(asked);
      return answer.action === "accept"
        ? `booked ${flight} ${String(answer.content.seat)}`
        : `not booked: ${answer.action}`;
    },
  });
}

const counter = (counts: string[]) =>
  tool({
    name: "count",
    description: "Counts.",
    input: z.object({}),
    run: () => {
      counts.push("ran");
      return "counted";
    },
  });

function agent(store: SqliteStore, question: () => PersonQuestion, runs: string[], counts: string[]) {
  return new Agent({
    // Calls the tools once, then answers: the same model in the first process and the resuming one.
    model: new FunctionModel((request) =>
      request.messages.at(-1)?.role === "tool"
        ? { text: "done" }
        : {
            toolCalls: [
              { name: "book", args: { flight: "LH1" } },
              { name: "count", args: {} },
            ],
          },
    ),
    tools: [booking(question, runs), counter(counts)],
    store,
  });
}

describe("a tool's question pauses a stored run until the person answers", () => {
  it("stores the question, lets the turn's other call finish once, and answers the re-asked question from the resume", async () => {
    const store = new SqliteStore({ path: ":memory:" });
    const runs: string[] = [];
    const counts: string[] = [];
    const error = await agent(store, () => QUESTION, runs, counts)
      .run("book LH1")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputRequiredError);
    const paused = error as InputRequiredError;
    expect(paused.code).toBe("awaiting_input");
    expect(paused.pending).toEqual([
      { toolCallId: expect.any(String), toolName: "book", question: QUESTION },
    ]);
    const stored = await store.loadRun(paused.runId);
    expect(stored.status).toBe("awaiting_approval");
    const waiting = stored.progress.pending.find((p) => p.state === "awaiting_input");
    expect(waiting?.questions).toEqual([{ question: QUESTION }]);
    expect(stored.progress.pending.find((p) => p.call.name === "count")?.state).toBe("done");
    expect(counts).toEqual(["ran"]);

    const id = paused.pending[0]?.toolCallId as string;
    // A fresh agent (another process would build one): the answer binds to the stored question.
    const result = await agent(store, () => QUESTION, runs, counts).resume(paused.runId, {
      answers: [{ toolCallId: id, answer: { action: "accept", content: { seat: "window" } } }],
    });
    expect(result.output).toBe("done");
    const results = result.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toEqual(["booked LH1 window", "counted"]);
    expect(runs).toEqual(["LH1", "LH1"]);
    expect(counts).toEqual(["ran"]);
    expect((await store.loadRun(paused.runId)).status).toBe("ok");
  });

  it("refuses an answer that does not fit the form, or for a call that does not wait, and the run stays paused", async () => {
    const store = new SqliteStore({ path: ":memory:" });
    const paused = (await agent(store, () => QUESTION, [], [])
      .run("book LH1")
      .catch((e: unknown) => e)) as InputRequiredError;
    const id = paused.pending[0]?.toolCallId as string;
    const resume = (answers: Parameters<Agent["resume"]>[1]) =>
      agent(store, () => QUESTION, [], []).resume(paused.runId, answers);
    await expect(
      resume({ answers: [{ toolCallId: id, answer: { action: "accept", content: { seat: "cockpit" } } }] }),
    ).rejects.toThrow(/field "seat" must be one of "window", "aisle"/);
    await expect(
      resume({
        answers: [{ toolCallId: id, answer: { action: "accept", content: { seat: "aisle", pilot: true } } }],
      }),
    ).rejects.toThrow(/did not ask for: "pilot"/);
    await expect(
      resume({ answers: [{ toolCallId: id, answer: { action: "accept", content: { count: 2 } } }] }),
    ).rejects.toThrow(/required field "seat"/);
    await expect(
      resume({ answers: [{ toolCallId: "call_other", answer: { action: "decline" } }] }),
    ).rejects.toThrow(/does not wait for an answer/);
    await expect(resume({})).rejects.toThrow(/Answer every waiting question/);
    expect((await store.loadRun(paused.runId)).status).toBe("awaiting_approval");
    // Declining is an answer too: the tool hears it.
    const result = await resume({ answers: [{ toolCallId: id, answer: { action: "decline" } }] });
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)[0]).toBe(
      "not booked: decline",
    );
  });

  it("asks anew when the question changed on the re-ask: the old answer never answers a different question", async () => {
    const store = new SqliteStore({ path: ":memory:" });
    let asked = QUESTION;
    const paused = (await agent(store, () => asked, [], [])
      .run("book LH1")
      .catch((e: unknown) => e)) as InputRequiredError;
    const id = paused.pending[0]?.toolCallId as string;
    // The tool now asks something else (another text, or a form with another field).
    asked = { ...QUESTION, message: "Which seat? Reply 'window' to pay 500 EUR." };
    const again = await agent(store, () => asked, [], [])
      .resume(paused.runId, {
        answers: [{ toolCallId: id, answer: { action: "accept", content: { seat: "window" } } }],
      })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(InputRequiredError);
    expect((again as InputRequiredError).pending[0]?.question.message).toContain("500 EUR");
    const stored = await store.loadRun(paused.runId);
    // The earlier question is kept, unanswered by the new one.
    expect(stored.progress.pending.find((p) => p.state === "awaiting_input")?.questions).toEqual([
      { question: asked },
    ]);
  });

  it("a call approved before the question is neither asked for again nor run twice", async () => {
    const store = new SqliteStore({ path: ":memory:" });
    const refunds: string[] = [];
    const make = () =>
      new Agent({
        model: new FunctionModel((request) =>
          request.messages.at(-1)?.role === "tool"
            ? { text: "done" }
            : {
                toolCalls: [
                  { name: "refund", args: { order: "A-1" } },
                  { name: "book", args: { flight: "LH1" } },
                ],
              },
        ),
        tools: [
          tool({
            name: "refund",
            description: "Refunds.",
            input: z.object({ order: z.string() }),
            needsApproval: true,
            run: ({ order }) => {
              refunds.push(order);
              return `refunded ${order}`;
            },
          }),
          booking(() => QUESTION, []),
        ],
        store,
      });
    const approval = (await make()
      .run("refund and book")
      .catch((e: unknown) => e)) as { runId: string; pending: { toolCallId: string }[] };
    const refundId = approval.pending[0]?.toolCallId as string;
    const asked = await make()
      .resume(approval.runId, { approve: [refundId] })
      .catch((e: unknown) => e);
    expect(asked).toBeInstanceOf(InputRequiredError);
    expect(refunds).toEqual(["A-1"]);
    const bookId = (asked as InputRequiredError).pending[0]?.toolCallId as string;
    const result = await make().resume(approval.runId, {
      answers: [{ toolCallId: bookId, answer: { action: "accept", content: { seat: "aisle" } } }],
    });
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "refunded A-1",
      "booked LH1 aisle",
    ]);
    expect(refunds).toEqual(["A-1"]);
  });

  it("fails the call with a message the model reads when nothing stores the run", async () => {
    const runs: string[] = [];
    const result = await new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "book", args: { flight: "LH1" } }] },
        { text: "gave up" },
      ]),
      tools: [booking(() => QUESTION, runs)],
    }).run("book");
    expect(result.messages.find((m) => m.role === "tool")?.content).toMatch(
      /booking asked the person a question, but this run cannot wait/,
    );
  });
});
