import { Agent, ConfigError, ToolRegistry, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const echo = tool({
  name: "echo",
  description: "Echoes its text.",
  input: z.object({ text: z.string() }),
  run: ({ text }) => `echo:${text}`,
});
const add = tool({
  name: "add",
  description: "Adds.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});

describe("ToolRegistry", () => {
  it("refuses a duplicate name with a clear error", () => {
    const registry = new ToolRegistry().register(echo);
    const again = tool({ ...echo, input: z.object({ text: z.string() }) });
    expect(() => registry.register(again)).toThrowError(ConfigError);
    expect(() => registry.register(again)).toThrowError(
      'Duplicate tool name "echo": a registry holds one tool per name',
    );
    expect(registry.size).toBe(1);
  });

  it("refuses duplicates in an agent's tool list as well", () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ model, tools: [echo, add, echo] })).toThrowError(/Duplicate tool name "echo"/);
  });

  it("lists tools and specs in registration order", () => {
    const registry = new ToolRegistry().register(echo).register(add);
    expect(registry.list().map((t) => t.name)).toEqual(["echo", "add"]);
    expect(registry.specs()).toEqual([
      { name: "echo", description: "Echoes its text.", parameters: echo.parameters },
      { name: "add", description: "Adds.", parameters: add.parameters },
    ]);
    expect(registry.has("add")).toBe(true);
    expect(registry.get("missing")).toBeUndefined();
  });

  it("register({ terminal: true }) copies: the tool itself is never changed", () => {
    const registry = new ToolRegistry().register(echo, { terminal: true });
    expect(echo.terminal).toBe(false);
    expect(registry.get("echo")).not.toBe(echo);
    expect(registry.get("echo")?.terminal).toBe(true);
    expect(registry.terminalTools().map((t) => t.name)).toEqual(["echo"]);
    expect(Object.isFrozen(registry.get("echo"))).toBe(true);
  });

  it("lets one tool be terminal for one agent and plain for another", async () => {
    const ending = new ToolRegistry().register(echo, { terminal: true });
    const plain = new ToolRegistry().register(echo);

    const endModel = new ScriptedModel([{ toolCalls: [{ name: "echo", args: { text: "hi" } }] }]);
    const ends = new Agent({ model: endModel, tools: ending });
    const first = await ends.run("say hi");
    expect(first.output).toBe("echo:hi");
    expect(first.finishedBy).toBe("echo");
    expect(endModel.remaining).toBe(0);

    const plainModel = new ScriptedModel([
      { toolCalls: [{ name: "echo", args: { text: "hi" } }] },
      { text: "It said echo:hi." },
    ]);
    const continues = new Agent({ model: plainModel, tools: plain });
    const second = await continues.run("say hi");
    expect(second.output).toBe("It said echo:hi.");
    expect(second.finishedBy).toBe("text");
    expect(plainModel.remaining).toBe(0);
  });

  it("an agent copies the registry: registering later does not change the agent", async () => {
    const registry = new ToolRegistry().register(echo);
    const model = new ScriptedModel([{ text: "ok" }]);
    const agent = new Agent({ model, tools: registry });
    registry.register(add);
    await agent.run("hi");
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["echo"]);
  });

  it("refuses an invalid name at registration too (a hand-made tool object)", () => {
    const bad = { ...echo, name: "bad name" };
    expect(() => new ToolRegistry().register(bad)).toThrowError(/Invalid tool name "bad name"/);
  });
});
