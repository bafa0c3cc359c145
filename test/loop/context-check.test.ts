import { Agent, tool } from "glassloop";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { capture } from "../helpers/core.js";

const SECRET = "sk-hidden-7f3a9c";

class Db {
  readonly rows: { title: string }[] = [];
  readonly password = SECRET;
  insert(row: { title: string }) {
    this.rows.push(row);
    return this.rows.length;
  }
}
class Papers {
  constructor(readonly db: Db) {}
}
class Other {}

const savePaper = tool({
  name: "save_paper",
  description: "Saves a paper.",
  input: z.object({ title: z.string() }),
  context: Papers,
  run: (args, { context }) => `saved #${context.db.insert(args)}`,
});
const keyed = tool({
  name: "keyed",
  description: "Uses an API key.",
  input: z.object({ q: z.string() }),
  context: z.object({ apiKey: z.string().min(8) }),
  run: ({ q }, { context }) => `${q}: key of ${context.apiKey.length} chars`,
});
const model = () => new ScriptedModel([]);

describe("the agent's context is checked against every tool at construction", () => {
  it("names the tool, the class it requires, and that no context was given", () => {
    // @ts-expect-error save_paper needs a Papers context
    const make = () => new Agent({ model: model(), tools: [savePaper] });
    expect(make).toThrowError(TypeError);
    expect(make).toThrowError(
      `Tool "save_paper" requires an instance of Papers, but the agent's context is undefined (no context was given to the agent)`,
    );
  });

  it("names the class it was given instead", () => {
    // @ts-expect-error an Other is not a Papers
    const make = () => new Agent({ model: model(), tools: [savePaper], context: new Other() });
    expect(make).toThrowError(
      `Tool "save_paper" requires an instance of Papers, but the agent's context is an instance of Other`,
    );
  });

  it("describes a plain object or a primitive by type, never by value", () => {
    const plain = () =>
      // @ts-expect-error a plain object is not a Papers
      new Agent({ model: model(), tools: [savePaper], context: { password: SECRET } });
    expect(plain).toThrowError(
      `Tool "save_paper" requires an instance of Papers, but the agent's context is a plain object with keys {password}`,
    );
    // @ts-expect-error a string is not a Papers
    const text = () => new Agent({ model: model(), tools: [savePaper], context: SECRET });
    expect(text).toThrowError(
      `Tool "save_paper" requires an instance of Papers, but the agent's context is string`,
    );
    expect(text).not.toThrowError(SECRET);
    // @ts-expect-error null is not a Papers
    const nothing = () => new Agent({ model: model(), tools: [savePaper], context: null });
    expect(nothing).toThrowError(/but the agent's context is null$/);
  });

  it("checks a zod-declared context and lists the schema's issues", () => {
    // @ts-expect-error apiKey must be a string
    const wrongType = () => new Agent({ model: model(), tools: [keyed], context: { apiKey: 12345678 } });
    expect(wrongType).toThrowError(TypeError);
    expect(wrongType).toThrowError(
      `Tool "keyed" requires a context matching its zod schema (apiKey: Invalid input: expected string, received number), but the agent's context is a plain object with keys {apiKey}`,
    );
    const tooShort = () => new Agent({ model: model(), tools: [keyed], context: { apiKey: "short" } });
    expect(tooShort).toThrowError(/apiKey: Too small: expected string to have >=8 characters/);
    expect(tooShort).not.toThrowError(/short"/);
  });

  it("accepts a subclass instance and a matching plain object", () => {
    class MorePapers extends Papers {}
    expect(
      () => new Agent({ model: model(), tools: [savePaper], context: new MorePapers(new Db()) }),
    ).not.toThrow();
    expect(
      () => new Agent({ model: model(), tools: [keyed], context: { apiKey: "12345678" } }),
    ).not.toThrow();
  });

  it("checks a per-run context the same way, before any model call", async () => {
    const m = new ScriptedModel([{ text: "never" }]);
    const agent = new Agent({ model: m, tools: [savePaper], context: new Papers(new Db()) });
    // @ts-expect-error a per-run context must be a Papers too
    await expect(agent.run("x", { context: new Other() })).rejects.toThrowError(
      `Tool "save_paper" requires an instance of Papers, but the agent's context is an instance of Other`,
    );
    expect(m.requests).toHaveLength(0);
  });
});

describe("the context reaches tools and nothing else", () => {
  it("injects the very object into run, and a per-run context replaces it", async () => {
    const agentDb = new Db();
    const runDb = new Db();
    const script = () =>
      new FunctionModel((_req, i) =>
        i === 0 ? { toolCalls: [{ name: "save_paper", args: { title: "GAME" } }] } : { text: "saved" },
      );
    const agent = new Agent({ model: script(), tools: [savePaper], context: new Papers(agentDb) });
    await agent.run("save it");
    expect(agentDb.rows).toEqual([{ title: "GAME" }]);

    const other = new Agent({ model: script(), tools: [savePaper], context: new Papers(agentDb) });
    await other.run("save it", { context: new Papers(runDb) });
    expect(runDb.rows).toEqual([{ title: "GAME" }]);
    expect(agentDb.rows).toHaveLength(1);
  });

  it("never appears in a request the model got, an event, or the result", async () => {
    const m = new ScriptedModel([
      {
        toolCalls: [
          { name: "save_paper", args: { title: "On agents" } },
          { name: "keyed", args: { q: "lookup" } },
        ],
      },
      { text: "Both done." },
    ]);
    class Both extends Papers {
      readonly apiKey = `${SECRET}-api`;
    }
    const agent = new Agent({
      instructions: "Save papers.",
      model: m,
      tools: [savePaper, keyed],
      context: new Both(new Db()),
    });
    const { result, events } = await capture((onEvent) => agent.run("Save 'On agents'.", { onEvent }));
    expect(result?.output).toBe("Both done.");
    // The tools did use it.
    expect(result?.messages.filter((msg) => msg.role === "tool").map((msg) => msg.content)).toEqual([
      "saved #1",
      `lookup: key of ${SECRET.length + 4} chars`,
    ]);
    expect(JSON.stringify(m.requests)).not.toContain(SECRET);
    for (const event of events) expect(JSON.stringify(event)).not.toContain(SECRET);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    // Nor is its shape: the tools' schemas hold only their arguments.
    for (const request of m.requests) {
      for (const spec of request.tools) expect(JSON.stringify(spec)).not.toMatch(/password|apiKey|db/);
    }
  });
});
