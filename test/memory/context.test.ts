import { Agent, type AgentEvent, ContextOverflowError, type Message, ModelCallError, tool } from "glassloop";
import {
  fitWindow,
  type MemoryStrategy,
  SUMMARY_PREFIX,
  SummaryMemory,
  WindowMemory,
} from "glassloop/memory";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fenceFor } from "../../src/core/prompt-fence.js";

const history: Message[] = Array.from({ length: 12 }, (_, i): Message[] => [
  { role: "user", content: `question ${i}: ${"words ".repeat(30)}` },
  { role: "assistant", content: `answer ${i}: ${"more ".repeat(30)}` },
]).flat();

const echo = tool({
  name: "echo",
  description: "Echoes.",
  input: z.object({ s: z.string() }),
  run: ({ s }) => s,
});

function collect(): { events: AgentEvent[]; onEvent: (e: AgentEvent) => void } {
  const events: AgentEvent[] = [];
  return { events, onEvent: (e) => events.push(e) };
}

describe("memory strategies in the loop", () => {
  it("WindowMemory trims what is sent, never what is kept, and says so in a context event", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "echo", args: { s: "hi" } }] }, { text: "done" }]);
    const agent = new Agent({ model, tools: [echo], memory: new WindowMemory({ maxTokens: 300 }) });
    const { events, onEvent } = collect();
    const result = await agent.run("latest question", { history, onEvent });
    const sent = model.requests[1]?.messages ?? [];
    expect(sent.length).toBeLessThan(result.messages.length);
    expect(sent.at(-3)).toEqual({ role: "user", content: "latest question" });
    expect(sent.at(-1)?.role).toBe("tool");
    expect(result.messages).toHaveLength(history.length + 4);
    const context = events.filter((e) => e.type === "context");
    expect(context[0]).toMatchObject({ reason: "memory", total: history.length + 1 });
    expect(context.every((e) => e.type === "context" && e.tokens <= 300)).toBe(true);
  });

  it("SummaryMemory's summary is a model call visible in the events and counted in usage", async () => {
    const model = new FunctionModel((request) =>
      request.tools.length === 0 ? { text: "They asked 12 questions." } : { text: "final answer" },
    );
    const agent = new Agent({
      model,
      tools: [echo],
      memory: new SummaryMemory({ maxTokens: 400, keepRecent: 2 }),
    });
    const { events, onEvent } = collect();
    const result = await agent.run("and now?", { history, onEvent });
    const requests = events.filter((e) => e.type === "model_request");
    expect(requests.map((e) => e.type === "model_request" && e.purpose)).toEqual(["summary", undefined]);
    const summaryResponse = events.find((e) => e.type === "model_response" && e.purpose === "summary");
    expect(summaryResponse).toMatchObject({ text: "They asked 12 questions." });
    const main = model.requests[1]?.messages ?? [];
    const fence = fenceFor("summary", ["They asked 12 questions."]);
    expect(main[0]).toEqual({
      role: "user",
      content: `${SUMMARY_PREFIX} ${fence.rule}\n<${fence.name}>\nThey asked 12 questions.\n</${fence.name}>`,
    });
    expect(main.at(-1)).toEqual({ role: "user", content: "and now?" });
    expect(result.usage.requests).toBe(2);
    expect(result.messages.length).toBe(history.length + 2);
    expect(result.output).toBe("final answer");
  });

  it("compacts once and retries when the provider reports a context overflow", async () => {
    const sizes: number[] = [];
    const model = new FunctionModel((request) => {
      sizes.push(request.messages.length);
      if (request.messages.length > 20)
        return { error: new ContextOverflowError("prompt is too long", { provider: "test", status: 400 }) };
      return { text: "fits now" };
    });
    const agent = new Agent({ model });
    const { events, onEvent } = collect();
    const result = await agent.run("last", { history, onEvent });
    expect(result.output).toBe("fits now");
    expect(sizes[0]).toBe(history.length + 1);
    expect(sizes[1]).toBeLessThanOrEqual(20);
    expect(sizes).toHaveLength(2);
    expect(events.find((e) => e.type === "context")).toMatchObject({ reason: "overflow" });
    expect(result.messages).toHaveLength(history.length + 2);
  });

  it("after one overflow, the run's later calls are sent compacted without overflowing first", async () => {
    const sizes: number[] = [];
    let calls = 0;
    const model = new FunctionModel((request) => {
      sizes.push(request.messages.length);
      if (request.messages.length > 20)
        return { error: new ContextOverflowError("prompt is too long", { provider: "test", status: 400 }) };
      calls++;
      return calls === 1 ? { toolCalls: [{ id: "e1", name: "echo", args: { s: "x" } }] } : { text: "done" };
    });
    const result = await new Agent({ model, tools: [echo] }).run("last", { history });
    expect(result.output).toBe("done");
    // The first call overflowed and was compacted; the next step's call (the transcript is two
    // messages longer) went out compacted at once.
    expect(sizes).toHaveLength(3);
    expect(sizes[0]).toBe(history.length + 1);
    expect(sizes[2]).toBeLessThanOrEqual(20);
    expect(result.messages).toHaveLength(history.length + 4);
  });

  it("runs a custom strategy built on fitWindow (the docs' example)", async () => {
    const lastTurn: MemoryStrategy = {
      async select(messages, { tokens, limit }) {
        const start = messages.findLastIndex((m) => m.role === "user");
        return fitWindow(messages.slice(start), Math.min(4_000, limit ?? Number.POSITIVE_INFINITY), tokens);
      },
    };
    const model = new ScriptedModel([{ text: "ok" }]);
    await new Agent({ model, memory: lastTurn }).run("only this", { history });
    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: "only this" }]);
  });

  it("a second overflow after compacting ends the run with the provider's error", async () => {
    const model = new FunctionModel(() => ({
      error: new ContextOverflowError("prompt is too long", { provider: "test", status: 400 }),
    }));
    const agent = new Agent({ model });
    const run = agent.run("last", { history });
    await expect(run).rejects.toBeInstanceOf(ModelCallError);
    await expect(agent.run("last", { history })).rejects.toMatchObject({ code: "context_overflow" });
    expect(model.requests).toHaveLength(4);
  });
});
