import { Agent, type AgentEvent, ToolError, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import type { PlanEvent } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const fetchPage = tool({
  name: "fetch_page",
  description: "Fetches a page by id.",
  input: z.object({ id: z.number() }),
  run: ({ id }) => {
    if (id === 404) throw new ToolError("Page 404 does not exist.");
    return `page ${id}`;
  },
});

describe("planning", () => {
  it("is off by default: no plan tool, no forced tool choice", async () => {
    const model = new ScriptedModel([{ text: "hi" }]);
    await new Agent({ model, tools: [fetchPage] }).run("hello");
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["fetch_page"]);
    expect(model.requests[0]?.toolChoice).toBeUndefined();
  });

  it("asks for a plan first, keeps it in memory, and revises it after a failing step", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "update_plan", args: { steps: ["fetch page 404", "summarize it"] } }] },
      { toolCalls: [{ name: "fetch_page", args: { id: 404 } }] },
      { toolCalls: [{ name: "update_plan", args: { steps: ["fetch page 1 instead", "summarize it"] } }] },
      { toolCalls: [{ name: "fetch_page", args: { id: 1 } }] },
      { text: "Page 1 says: page 1" },
    ]);
    const events: AgentEvent[] = [];
    const agent = new Agent({ model, tools: [fetchPage], plan: true });
    const result = await agent.run("Summarize page 404", { onEvent: (e) => events.push(e) });
    expect(result.output).toBe("Page 1 says: page 1");

    const choices = model.requests.map((r) => r.toolChoice);
    expect(choices).toEqual([
      { name: "update_plan" },
      undefined,
      { name: "update_plan" },
      undefined,
      undefined,
    ]);
    const plans = events.filter((e): e is PlanEvent => e.type === "plan");
    expect(plans.map((p) => [p.revision, p.steps[0]])).toEqual([
      [0, "fetch page 404"],
      [1, "fetch page 1 instead"],
    ]);
    // The plan is part of what the model sees next.
    const second = model.requests[1]?.messages ?? [];
    expect(JSON.stringify(second)).toContain("fetch page 404");
    // Planning costs what it costs.
    expect(result.usage.requests).toBe(5);
  });

  it("reserves the plan tool's name", () => {
    const clash = tool({ name: "update_plan", description: "x", input: z.object({}), run: () => 1 });
    expect(() => new Agent({ model: new ScriptedModel([]), tools: [clash], plan: true })).toThrow(/reserved/);
  });
});
