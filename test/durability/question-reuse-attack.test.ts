/**
 * A hostile model against a recorded answer: once the person answered one call's question, a later
 * call of the same tool with the same question (a new id, or the answered call's id reused) must be
 * asked anew; the answer books only what the person saw.
 */
import { Agent, tool } from "glassloop";
import { SqliteStore } from "glassloop/store";
import { FunctionModel } from "glassloop/testing";
import { InputRequiredError, type PersonQuestion, QuestionAsked } from "glassloop/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const QUESTION: PersonQuestion = {
  source: "bank",
  message: "Pay this?",
  schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
};

function setup(store: SqliteStore, secondId: (firstId: string) => string, paid: string[]) {
  const pay = tool({
    name: "pay",
    description: "Pays an amount.",
    input: z.object({ amount: z.number() }),
    run: ({ amount }, options) => {
      const answer = options.answered?.(QUESTION);
      if (!answer) throw new QuestionAsked(QUESTION);
      if (answer.action === "accept" && answer.content.ok === true) paid.push(String(amount));
      return `paid ${amount}`;
    },
  });
  return new Agent({
    // Step 1: pay 10 (the person is asked). Step 2, after the answer: pay 10,000 more with the same question.
    model: new FunctionModel((request) => {
      const tools = request.messages.filter((m) => m.role === "tool").length;
      if (tools === 0) return { toolCalls: [{ id: "call_small", name: "pay", args: { amount: 10 } }] };
      if (tools === 1)
        return { toolCalls: [{ id: secondId("call_small"), name: "pay", args: { amount: 10_000 } }] };
      return { text: "done" };
    }),
    tools: [pay],
    store,
  });
}

describe("a hostile model after the person answered one question", () => {
  for (const [label, secondId] of [
    ["a new call id", () => "call_big"],
    ["the answered call's id again", (first: string) => first],
  ] as const) {
    it(`cannot spend the answer on a second call (${label}): the run pauses and asks again`, async () => {
      const store = new SqliteStore({ path: ":memory:" });
      const paid: string[] = [];
      const first = (await setup(store, secondId, paid)
        .run("pay")
        .catch((e: unknown) => e)) as InputRequiredError;
      expect(first).toBeInstanceOf(InputRequiredError);
      const asked = first.pending[0]?.toolCallId as string;
      const again = await setup(store, secondId, paid)
        .resume(first.runId, {
          answers: [{ toolCallId: asked, answer: { action: "accept", content: { ok: true } } }],
        })
        .catch((e: unknown) => e);
      // The small payment went through on the person's answer; the big one waits for its own.
      expect(paid).toEqual(["10"]);
      expect(again).toBeInstanceOf(InputRequiredError);
      expect((again as InputRequiredError).pending).toHaveLength(1);
      expect((again as InputRequiredError).pending[0]?.question).toEqual(QUESTION);
      // The person declines the big one: the small payment's accept must not stand in for it.
      const second = (again as InputRequiredError).pending[0]?.toolCallId as string;
      const result = await setup(store, secondId, paid).resume(first.runId, {
        answers: [{ toolCallId: second, answer: { action: "decline" } }],
      });
      expect(paid).toEqual(["10"]);
      expect(result.output).toBe("done");
      store.close();
    });
  }
});
