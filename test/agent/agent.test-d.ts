import { Agent, type RunResult, ToolRegistry, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";

class Db {
  insert(row: { title: string; body: string }) {
    return row.title.length;
  }
}
class Papers {
  constructor(readonly db: Db) {}
}
const model = new ScriptedModel([]);

const add = tool({
  name: "add",
  description: "Adds.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: (args) => {
    expectTypeOf(args).toEqualTypeOf<{ a: number; b: number }>();
    return args.a + args.b;
  },
});
const savePaper = tool({
  name: "save_paper",
  description: "Saves a paper.",
  input: z.object({ title: z.string(), body: z.string() }),
  context: Papers,
  run: (args, { context, signal }) => {
    expectTypeOf(context).toEqualTypeOf<Papers>();
    expectTypeOf(signal).toEqualTypeOf<AbortSignal>();
    return context.db.insert(args);
  },
});

describe("type inference", () => {
  it("infers run's arguments and result from the zod schema", () => {
    expectTypeOf(add.run).parameter(0).toEqualTypeOf<{ a: number; b: number }>();
    expectTypeOf(add.run).returns.toEqualTypeOf<number | Promise<number>>();
  });

  it("types the output as text without an output schema", () => {
    const agent = new Agent({ model, tools: [add] });
    expectTypeOf(agent.run("x")).resolves.toEqualTypeOf<RunResult<string>>();
  });

  it("types the output from the output schema", () => {
    const agent = new Agent({ model, tools: [add], output: z.object({ answer: z.number() }) });
    expectTypeOf(agent.run("x")).resolves.toEqualTypeOf<RunResult<{ answer: number }>>();
  });

  it("types the output as the union of terminal tools' results", () => {
    const finish = tool({
      name: "finish",
      description: "Ends.",
      input: z.object({ s: z.string() }),
      run: (a) => a.s,
    });
    const registry = new ToolRegistry().register(add).register(finish, { terminal: true });
    const agent = new Agent({ model, tools: registry });
    expectTypeOf(agent.run("x")).resolves.toEqualTypeOf<RunResult<string>>();
    const both = new ToolRegistry().register(add, { terminal: true }).register(finish, { terminal: true });
    expectTypeOf(new Agent({ model, tools: both }).run("x")).resolves.toEqualTypeOf<
      RunResult<number | string>
    >();
  });

  it("accepts a context that satisfies every tool", () => {
    const agent = new Agent({ model, tools: [add, savePaper], context: new Papers(new Db()) });
    expectTypeOf(agent).toEqualTypeOf<Agent<Papers, string>>();
    const registry = new ToolRegistry().register(savePaper);
    new Agent({ model, tools: registry, context: new Papers(new Db()) });
  });

  it("rejects a missing or wrong context at compile time", () => {
    // @ts-expect-error save_paper needs a Papers context
    new Agent({ model, tools: [add, savePaper] });
    // @ts-expect-error a string is not a Papers
    new Agent({ model, tools: [savePaper], context: "db" });
    const registry = new ToolRegistry().register(savePaper);
    // @ts-expect-error the registry's tools need a Papers context
    new Agent({ model, tools: registry, context: 42 });
  });

  it("accepts a plain-object context declared with a zod schema", () => {
    const keyed = tool({
      name: "keyed",
      description: "Uses a key.",
      input: z.object({}),
      context: z.object({ apiKey: z.string() }),
      run: (_args, { context }) => context.apiKey.length,
    });
    new Agent({ model, tools: [keyed], context: { apiKey: "k" } });
    // @ts-expect-error apiKey must be a string
    new Agent({ model, tools: [keyed], context: { apiKey: 1 } });
  });
});

describe("a run with no new user message", () => {
  it("takes null only with a conversation to continue (history or session), and no attachments", () => {
    const agent = new Agent({ model });
    const history = [{ role: "user" as const, content: "hi" }];
    expectTypeOf(agent.run(null, { history })).toEqualTypeOf<Promise<RunResult<string>>>();
    expectTypeOf(agent.run(null, { session: "alice" })).toEqualTypeOf<Promise<RunResult<string>>>();
    agent.stream(null, { history });
    // @ts-expect-error nothing to continue: null needs history or session
    agent.run(null);
    // @ts-expect-error nothing to continue: null needs history or session
    agent.run(null, {});
    // @ts-expect-error one conversation: history or session, not both
    agent.run(null, { history, session: "alice" });
    // @ts-expect-error images and files ride on a new user message
    agent.run(null, { history, images: [] });
  });
});
