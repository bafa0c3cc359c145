/**
 * The names a docs example may use without defining them: a block asks for them on its first line
 * (`// needs: agent, model, z`) and gets them from here. Besides the objects below, every export of
 * glassloop, of its room entries (glassloop/models, /store, /memory, /tools, /trace, /multi,
 * /testing) and zod's `z` can be named, so an excerpt that continues an earlier one does not have to
 * repeat its imports.
 *
 * The test sets the environment before loading this module: provider keys are dummies, base URLs
 * point at the wire server on 127.0.0.1, and the store file lives in a temporary directory.
 */
import { Agent, type AgentTool, type Message, type Model, ToolRegistry, tool } from "glassloop";
import { LongTermMemory } from "glassloop/memory";
import { SqliteStore } from "glassloop/store";
import { FunctionModel, type RecordedRequest } from "glassloop/testing";
import { z } from "zod";
import { add, multiply } from "../helpers/calculator-tools.js";
import { type Asked, decide } from "./brain.js";

export * from "glassloop";
export * from "glassloop/memory";
export * from "glassloop/models";
export * from "glassloop/multi";
export * from "glassloop/store";
export * from "glassloop/testing";
export * from "glassloop/tools";
export * from "glassloop/trace";
export { add, multiply, z };

/** What the policy reads from a glassloop request (the FunctionModel's view). */
function askedOf(request: RecordedRequest): Asked {
  const messages = request.messages;
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  return {
    user: lastUser >= 0 ? messages[lastUser]!.content : "",
    tools: request.tools.map((t) => ({ name: t.name, parameters: t.parameters })),
    results: messages.slice(lastUser + 1).flatMap((m) => (m.role === "tool" ? [m.content] : [])),
  };
}

/** A model driven by the docs' policy (test/docs/brain.ts), with a price so budgets in dollars work. */
export function policyModel(id = "docs:policy"): Model {
  return new FunctionModel(
    (request) => {
      const move = decide(askedOf(request));
      return "call" in move
        ? { toolCalls: [move.call], usage: { inputTokens: 20, outputTokens: 5 } }
        : { text: move.text, usage: { inputTokens: 20, outputTokens: 5 } };
    },
    { id, price: { inputPerMTok: 0.15, outputPerMTok: 0.6 } },
  );
}

/** The model most examples pass around. */
export const model = policyModel();
/** A second, cheaper model (summaries). */
export const cheapModel = policyModel("docs:cheap");
/** A model that judges answers (reflection). */
export const judgeModel = policyModel("docs:judge");

/** The calculator's calculator tools, as a list. */
export const tools: AgentTool<unknown>[] = [add, multiply];

/** The store the examples share: the SQLite file the test put in GLASSLOOP_DB. */
export const store = new SqliteStore();

/** The calculator's calculator agent, with the shared store so sessions and runs persist. */
export const agent = new Agent({
  name: "calculator",
  instructions: "Perform arithmetic with the tools.",
  model,
  tools: [add, multiply],
  store,
});

/** A calculator agent for any model (what a trace replay builds). */
export const makeAgent = (m: Model) =>
  new Agent({ instructions: "Perform arithmetic with the tools.", model: m, tools: [add, multiply] });

/** A task for `agent`. */
export const task = "Add 200 and 10, then multiply the result by 2.";

/** Earlier messages of a conversation. */
export const history: Message[] = [];

/** A stand-in database handle, the hidden context of `save_paper`. */
export interface Db {
  insert(row: { title: string; body: string }): { id: number };
}
/** An in-memory Db. */
export const db: Db = {
  insert: (() => {
    let id = 0;
    return () => ({ id: ++id });
  })(),
};
/** The hidden context class that holds the Db. */
export class Papers {
  constructor(readonly db: Db) {}
}

/** A tool with hidden context: it saves through the Db the agent injects. */
export const savePaper = tool({
  name: "save_paper",
  description: "Saves a paper.",
  input: z.object({ title: z.string(), body: z.string() }),
  context: Papers,
  run: (args, { context }) => context.db.insert(args),
});

/** A stand-in bank, for the approval example. */
export const bank = {
  transfer: ({ to, amount }: { to: string; amount: number }) => ({ ok: true, to, amount }),
};

/** The report tool of the terminal-tools examples. */
export const finish = tool({
  name: "finish",
  description: "Hands in the report.",
  input: z.object({ report: z.string() }),
  run: ({ report }) => ({ report, words: report.split(" ").length }),
});

/** A web search stand-in for the researcher examples. */
export const search = tool({
  name: "search",
  description: "Searches the web.",
  input: z.object({ query: z.string() }),
  run: ({ query }) => `No results for ${query} (docs example).`,
});

/** Specialists for the router example. */
export const mathAgent = new Agent({ name: "math", model, tools: [add, multiply] });
/** The lookup specialist. */
export const lookupAgent = new Agent({ name: "lookup", model, tools: new ToolRegistry().register(search) });

/** Long-term memory over the shared store. */
export const memory = new LongTermMemory({ store, scope: { user: "alice" } });
