import { Agent, ToolError, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resultOf } from "../helpers/core.js";

const loud = (chars: number, maxResultChars?: number) =>
  tool({
    name: "loud",
    description: "Fails with a long message.",
    input: z.object({}),
    ...(maxResultChars !== undefined && { maxResultChars }),
    run: () => {
      throw new ToolError("x".repeat(chars));
    },
  });

describe("ToolError messages and maxResultChars", () => {
  it("a ToolError message longer than the environment's maxResultChars is truncated before the model sees it", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ id: "c1", name: "loud", args: {} }] }, { text: "ok" }]);
    const agent = new Agent({ model, tools: [loud(50_000)], environment: { maxResultChars: 1_000 } });
    const result = await agent.run("go");
    const content = resultOf(result.messages, "c1").content;
    expect(content.startsWith("x".repeat(1_000))).toBe(true);
    expect(content).toContain("[truncated: 49,000 of 50,000 characters cut]");
    // What went to the model is the truncated text, not the 50,000 characters.
    expect(JSON.stringify(model.requests[1]?.messages).length).toBeLessThan(2_000);
  });

  it("a tool's own maxResultChars bounds its ToolError messages too", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ id: "c1", name: "loud", args: {} }] }, { text: "ok" }]);
    const agent = new Agent({ model, tools: [loud(500, 100)] });
    const result = await agent.run("go");
    expect(resultOf(result.messages, "c1")).toMatchObject({
      isError: true,
      content: `${"x".repeat(100)}\n[truncated: 400 of 500 characters cut]`,
    });
  });
});
