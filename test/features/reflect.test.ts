import { Agent, type AgentEvent, BudgetExceededError, ConfigError, RunError } from "glassloop";
import { modelEvaluator } from "glassloop/multi";
import { ScriptedModel } from "glassloop/testing";
import type { ReflectionEvent } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { fenceFor } from "../../src/core/prompt-fence.js";

describe("reflection", () => {
  it("sends the agent back once with the feedback and accepts the second answer", async () => {
    const model = new ScriptedModel([
      { text: "Paris is in Germany." },
      { text: "Paris is the capital of France." },
    ]);
    const seen: string[] = [];
    const agent = new Agent({
      model,
      reflect: {
        evaluator: ({ output }) => {
          seen.push(String(output));
          return String(output).includes("France")
            ? { accept: true }
            : { accept: false, feedback: "Check the country." };
        },
      },
    });
    const events: AgentEvent[] = [];
    const result = await agent.run("Where is Paris?", { onEvent: (e) => events.push(e) });
    expect(result.output).toBe("Paris is the capital of France.");
    expect(seen).toEqual(["Paris is in Germany.", "Paris is the capital of France."]);
    const verdicts = events.filter((e): e is ReflectionEvent => e.type === "reflection");
    expect(verdicts.map((v) => [v.round, v.accept, v.feedback])).toEqual([
      [1, false, "Check the country."],
      [2, true, undefined],
    ]);
    const fence = fenceFor("feedback", ["Check the country."]);
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: "user",
      content: `A reviewer rejected your answer. ${fence.rule}\n<${fence.name}>\nCheck the country.\n</${fence.name}>\nRevise your work and answer again.`,
    });
  });

  it("fails the run when the evaluator keeps rejecting past maxRounds", async () => {
    const model = new ScriptedModel([{ text: "a" }, { text: "b" }]);
    const agent = new Agent({
      model,
      reflect: { evaluator: () => ({ accept: false, feedback: "no" }), maxRounds: 1 },
    });
    const error = await agent.run("x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).code).toBe("rejected");
  });

  it("refuses a reflect.maxRounds that is not a whole number >= 0", () => {
    const evaluator = () => ({ accept: true }) as const;
    for (const maxRounds of [-1, 0.5, Number.NaN]) {
      expect(
        () => new Agent({ model: new ScriptedModel([]), reflect: { evaluator, maxRounds } }),
      ).toThrowError(ConfigError);
    }
    expect(
      () => new Agent({ model: new ScriptedModel([]), reflect: { evaluator, maxRounds: -1 } }),
    ).toThrowError("reflect.maxRounds must be a whole number >= 0 (or Infinity for no limit), got -1");
    expect(
      () => new Agent({ model: new ScriptedModel([]), reflect: { evaluator, maxRounds: 0 } }),
    ).not.toThrow();
  });

  it("runs a model evaluator whose call is visible and whose usage is counted", async () => {
    const judge = new ScriptedModel([
      {
        toolCalls: [{ name: "final_result", args: { accept: false, feedback: "Too short." } }],
        usage: { inputTokens: 7, outputTokens: 3 },
      },
      {
        toolCalls: [{ name: "final_result", args: { accept: true, feedback: "" } }],
        usage: { inputTokens: 9, outputTokens: 2 },
      },
    ]);
    const model = new ScriptedModel([
      { text: "Hi.", usage: { inputTokens: 10, outputTokens: 1 } },
      { text: "Hello, and welcome!", usage: { inputTokens: 20, outputTokens: 4 } },
    ]);
    const agent = new Agent({ model, reflect: { evaluator: modelEvaluator(judge) } });
    const events: AgentEvent[] = [];
    const result = await agent.run("Greet warmly", { onEvent: (e) => events.push(e) });
    expect(result.output).toBe("Hello, and welcome!");
    expect(result.usage.inputTokens).toBe(10 + 20 + 7 + 9);
    expect(result.usage.requests).toBe(4);
    const nestedRequests = events.filter((e) => e.type === "nested" && e.event.type === "model_request");
    expect(nestedRequests).toHaveLength(2);
    const fence = fenceFor("data", ["Greet warmly", "Hi."]);
    expect(judge.requests[0]?.messages).toEqual([
      {
        role: "user",
        content: [
          fence.rule,
          `Task:\n<${fence.name}>\nGreet warmly\n</${fence.name}>`,
          `Candidate answer:\n<${fence.name}>\nHi.\n</${fence.name}>`,
        ].join("\n\n"),
      },
    ]);
  });
});

describe("a model evaluator inside the run's budget", () => {
  it("its tokens count toward maxTokens: an accepted verdict past the limit is a budget stop, not success", async () => {
    const judge = new ScriptedModel([
      {
        toolCalls: [{ name: "final_result", args: { accept: true, feedback: "" } }],
        usage: { inputTokens: 500, outputTokens: 17 },
      },
    ]);
    const model = new ScriptedModel([{ text: "Hi.", usage: { inputTokens: 10, outputTokens: 1 } }]);
    const agent = new Agent({
      model,
      reflect: { evaluator: modelEvaluator(judge) },
      limits: { maxTokens: 100 },
    });
    const error = await agent.run("Greet").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "maxTokens", used: 528, max: 100 });
    // The run's transcript and usage, with the judge's usage rolled in.
    const stopped = error as BudgetExceededError;
    expect(stopped.messages.at(-1)).toEqual({ role: "assistant", content: "Hi." });
    expect(stopped.usage.requests).toBe(2);
  });

  it("the judge runs with the run's remaining budget as its limits", async () => {
    const limitsSeen: unknown[] = [];
    const judge = new ScriptedModel([
      { toolCalls: [{ name: "final_result", args: { accept: true, feedback: "" } }] },
    ]);
    const model = new ScriptedModel([{ text: "Hi.", usage: { inputTokens: 10, outputTokens: 1 } }]);
    const agent = new Agent({
      model,
      reflect: { evaluator: modelEvaluator(judge) },
      limits: { maxTokens: 1_000, maxToolCalls: 5 },
    });
    await agent.run("Greet", {
      onEvent: (e) => {
        if (e.type === "nested" && e.event.type === "run_start") limitsSeen.push(e.event.limits);
      },
    });
    expect(limitsSeen).toEqual([{ maxTokens: 989, maxToolCalls: 5 }]);
  });
});

describe("a model evaluator at the edge of the budget", () => {
  it("a run exactly at maxTokens when its answer is judged stops with BudgetExceededError, the judge makes no call", async () => {
    const judge = new ScriptedModel([]);
    const model = new ScriptedModel([{ text: "Hi.", usage: { inputTokens: 90, outputTokens: 10 } }]);
    const agent = new Agent({
      model,
      reflect: { evaluator: modelEvaluator(judge) },
      limits: { maxTokens: 100 },
    });
    const error = await agent.run("Greet").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "maxTokens", used: 100, max: 100 });
    expect(judge.requests).toHaveLength(0);
  });
});
