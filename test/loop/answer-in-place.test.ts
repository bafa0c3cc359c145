/**
 * A run that waits for the person's answer where it is (a distributed engine's `pauseForInput`
 * returns the answers, as glassloop/scale's workflow does): the turn's asking calls run again with
 * the answers on record, the others do not; a changed question comes back to the hook; a terminal
 * call answered ends the run. No store and no database: the loop's side of scale-out questions.
 */
import { Agent, ToolRegistry, tool } from "glassloop";
import { FunctionModel } from "glassloop/testing";
import { type AskedQuestion, type PersonQuestion, QuestionAsked } from "glassloop/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AskingTurn, RunHooks } from "../../src/loop/hooks.js";

const SEAT: PersonQuestion = {
  source: "booking",
  message: "Which seat?",
  schema: { type: "object", properties: { seat: { type: "string", enum: ["window", "aisle"] } } },
};
const MEAL: PersonQuestion = {
  source: "booking",
  message: "Which meal?",
  schema: { type: "object", properties: { meal: { type: "string" } } },
};

/** Answers every waiting question from `answers` (by message), recording what it was shown. */
function answeringHooks(answers: Record<string, Record<string, string>>, seen: AskingTurn[]): RunHooks {
  return {
    pauseForInput: async (_state, _step, turn) => {
      seen.push(turn);
      const record = new Map<string, AskedQuestion[]>();
      for (const [i, asked] of turn.asked) {
        const open = asked.at(-1) as AskedQuestion;
        const content = answers[open.question.message] ?? {};
        record.set(turn.calls[i]?.id ?? "", [
          ...asked.slice(0, -1),
          { question: open.question, answer: { action: "accept", content } },
        ]);
      }
      return record;
    },
  };
}

describe("a question answered in place (pauseForInput returns the answers)", () => {
  it("runs only the asking call again, with the answer; a second question comes back to the hook with the first answer kept", async () => {
    const runs: string[] = [];
    const book = tool({
      name: "book",
      description: "Books a seat and a meal.",
      input: z.object({}),
      run: (_args, { answered }) => {
        runs.push("book");
        const seat = answered?.(SEAT);
        if (!seat) throw new QuestionAsked(SEAT);
        const meal = answered?.(MEAL);
        if (!meal) throw new QuestionAsked(MEAL);
        if (seat.action !== "accept" || meal.action !== "accept") return "not booked";
        return `booked ${String(seat.content.seat)} with ${String(meal.content.meal)}`;
      },
    });
    const count = tool({
      name: "count",
      description: "Counts.",
      input: z.object({}),
      run: () => {
        runs.push("count");
        return "counted";
      },
    });
    const agent = new Agent({
      model: new FunctionModel((request) => {
        const last = request.messages.at(-1);
        if (last?.role === "tool") {
          const said = request.messages.filter((m) => m.role === "tool").map((m) => m.content);
          return { text: said.join("; ") };
        }
        return {
          toolCalls: [
            { id: "b1", name: "book", args: {} },
            { id: "c1", name: "count", args: {} },
          ],
        };
      }),
      tools: [book, count],
    });
    const seen: AskingTurn[] = [];
    const result = await agent.run("book me", {
      hooks: answeringHooks({ "Which seat?": { seat: "window" }, "Which meal?": { meal: "soup" } }, seen),
    });
    expect(result.output).toBe("booked window with soup; counted");
    // Asked the seat, then (answered) the meal, then ran through; the other call ran once.
    expect(runs).toEqual(["book", "count", "book", "book"]);
    expect(seen.map((t) => [...t.asked.values()].map((q) => q.map((a) => a.question.message)))).toEqual([
      [["Which seat?"]],
      [["Which seat?", "Which meal?"]],
    ]);
    expect(seen[1]?.asked.get(0)?.[0]?.answer).toEqual({ action: "accept", content: { seat: "window" } });
  });

  it("a terminal call that asked ends the run once answered", async () => {
    const finish = tool({
      name: "finish",
      description: "Finishes with the seat.",
      input: z.object({}),
      run: (_args, { answered }) => {
        const seat = answered?.(SEAT);
        if (!seat) throw new QuestionAsked(SEAT);
        return seat.action === "accept" ? `seat ${String(seat.content.seat)}` : "no seat";
      },
    });
    let calls = 0;
    const agent = new Agent({
      model: new FunctionModel(() => {
        calls++;
        return calls > 1
          ? { text: "the model was asked again" }
          : { toolCalls: [{ name: "finish", args: {} }] };
      }),
      tools: new ToolRegistry().register(finish, { terminal: true }),
    });
    const result = await agent.run("finish", {
      hooks: answeringHooks({ "Which seat?": { seat: "aisle" } }, []),
    });
    expect(result.output).toBe("seat aisle");
    expect(result.finishedBy).toBe("finish");
    expect(calls).toBe(1);
  });
});
