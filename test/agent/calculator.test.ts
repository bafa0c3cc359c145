import { Agent } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { add, multiply } from "../helpers/calculator-tools.js";

describe("the calculator agent", () => {
  it("adds, multiplies and answers 420 with the exact transcript", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "add", args: { a: 200, b: 10 } }] },
      { toolCalls: [{ name: "multiply", args: { a: 210, b: 2 } }] },
      { text: "420" },
    ]);
    const agent = new Agent({
      instructions: "Perform arithmetic with the tools.",
      model,
      tools: [add, multiply],
    });
    const result = await agent.run("Add 200 and 10, then multiply the result by 2.");
    expect(result.output).toBe("420");
    expect(result.messages).toEqual([
      { role: "system", content: "Perform arithmetic with the tools." },
      { role: "user", content: "Add 200 and 10, then multiply the result by 2." },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "add", arguments: '{"a":200,"b":10}' }],
      },
      { role: "tool", toolCallId: "call_1", toolName: "add", content: "210" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_2", name: "multiply", arguments: '{"a":210,"b":2}' }],
      },
      { role: "tool", toolCallId: "call_2", toolName: "multiply", content: "420" },
      { role: "assistant", content: "420" },
    ]);
    expect(result.usage.requests).toBe(3);
    expect(result.usage.toolCalls).toBe(2);
    expect(model.remaining).toBe(0);
  });
});
