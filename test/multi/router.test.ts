import { Agent, tool } from "glassloop";
import { Router } from "glassloop/multi";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const add = tool({
  name: "add",
  description: "Adds.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

describe("Router", () => {
  it("hands the conversation to the chosen specialist and says who answered", async () => {
    const mathModel = new ScriptedModel([
      { toolCalls: [{ name: "add", args: { a: 2, b: 2 } }] },
      { text: "4" },
    ]);
    const searchModel = new ScriptedModel([]);
    const routerModel = new ScriptedModel([
      {
        toolCalls: [{ name: "transfer_to_math", args: { reason: "arithmetic" } }],
        usage: { inputTokens: 5, outputTokens: 1 },
      },
    ]);
    const router = new Router({
      model: routerModel,
      specialists: {
        math: { description: "Arithmetic.", agent: new Agent({ model: mathModel, tools: [add] }) },
        search: { description: "Looks things up.", agent: new Agent({ model: searchModel }) },
      },
    });
    const result = await router.run("What is 2+2?", {
      history: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello!" },
      ],
    });
    expect(result.agent).toBe("math");
    expect(result.output).toBe("4");
    expect(routerModel.requests[0]?.tools.map((t) => t.name)).toEqual([
      "transfer_to_math",
      "transfer_to_search",
    ]);
    // "full" history: the specialist sees the earlier turns and the question.
    expect(mathModel.requests[0]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(result.usage.requests).toBe(3);
    expect(searchModel.requests).toHaveLength(0);
  });

  it("gives the specialist only the input when history is 'input'", async () => {
    const specialistModel = new ScriptedModel([{ text: "done" }]);
    const router = new Router({
      model: new ScriptedModel([{ toolCalls: [{ name: "transfer_to_only", args: {} }] }]),
      specialists: { only: { description: "Everything.", agent: new Agent({ model: specialistModel }) } },
      history: "input",
    });
    await router.run("task", {
      history: [
        { role: "user", content: "old" },
        { role: "assistant", content: "x" },
      ],
    });
    expect(specialistModel.requests[0]?.messages).toEqual([{ role: "user", content: "task" }]);
  });
});
