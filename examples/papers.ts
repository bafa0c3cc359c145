/**
 * A paper store: the tools need a database handle, which the model must never see or
 * invent. The `Papers` class holds it; the tools declare `context: Papers`, the agent gets
 * `context: new Papers(db)`, and the environment hands it to `run` at call time. The JSON Schema
 * the model receives has only `title`, `body` and `query`.
 *
 *   npx tsx examples/papers.ts
 *   npx tsx examples/papers.ts --model openai:gpt-4o-mini
 */
import { Agent, type Model, ToolError, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { z } from "zod";
import { chooseModel, isMain, type Print, runExample } from "./cli.js";

/** A saved paper. */
export interface Paper {
  id: number;
  title: string;
  body: string;
}

/** A stand-in for a real database client: rows in memory, plus a credential it must keep to itself. */
export class PaperDb {
  readonly #rows: Paper[] = [];
  constructor(readonly connectionString: string) {}

  insert(title: string, body: string): Paper {
    const paper = { id: this.#rows.length + 1, title, body };
    this.#rows.push(paper);
    return paper;
  }

  search(query: string): Paper[] {
    const q = query.toLowerCase();
    return this.#rows.filter((p) => p.title.toLowerCase().includes(q) || p.body.toLowerCase().includes(q));
  }

  get size(): number {
    return this.#rows.length;
  }
}

/** The hidden context of the paper tools: what they need from the application, never from the model. */
export class Papers {
  constructor(readonly db: PaperDb) {}
}

/** Saves a paper to the store. */
export const savePaper = tool({
  name: "save_paper",
  description: "Saves a research paper (title and body) to the user's library.",
  input: z.object({
    title: z.string().min(1).describe("The paper's title"),
    body: z.string().min(1).describe("The abstract or notes to keep"),
  }),
  context: Papers,
  run: ({ title, body }, { context }) => {
    if (context.db.search(title).some((p) => p.title === title)) {
      throw new ToolError(`A paper titled "${title}" is already saved.`);
    }
    const paper = context.db.insert(title, body);
    return { saved: paper.id, title: paper.title };
  },
});

/** Finds saved papers by a word in the title or body. */
export const findPapers = tool({
  name: "find_papers",
  description: "Searches the user's library for papers whose title or body contains the query.",
  input: z.object({ query: z.string().min(1).describe("A word or phrase to look for") }),
  context: Papers,
  run: ({ query }, { context }) => context.db.search(query).map(({ id, title }) => ({ id, title })),
});

/** The library agent; `papers` carries the database handle the tools use. */
export function papersAgent(model: Model | string, papers: Papers): Agent<Papers> {
  return new Agent({
    name: "librarian",
    instructions: "You manage the user's library of research papers with the tools.",
    model,
    tools: [savePaper, findPapers],
    context: papers,
    limits: { maxSteps: 6, maxToolCalls: 8 },
  });
}

/** The example's request. */
export const REQUEST =
  'Save the paper "Attention Is All You Need" (abstract: "We propose the Transformer, based solely on attention.") ' +
  "and then list what my library has on attention.";

/** What a tool-calling model answers to REQUEST. */
export function scriptedPapersModel(): ScriptedModel {
  return new ScriptedModel(
    [
      {
        text: "I'll save the paper first.",
        toolCalls: [
          {
            name: "save_paper",
            args: {
              title: "Attention Is All You Need",
              body: "We propose the Transformer, based solely on attention.",
            },
          },
        ],
      },
      { toolCalls: [{ name: "find_papers", args: { query: "attention" } }] },
      { text: 'Saved "Attention Is All You Need". Your library has 1 paper on attention: that one (id 1).' },
    ],
    { id: "scripted:papers" },
  );
}

/** Runs the example against a fresh in-memory store. Returns the exit code. */
export function main(argv: readonly string[] = process.argv.slice(2), print?: Print): Promise<number> {
  const db = new PaperDb("postgres://librarian:s3cret@db.internal/papers");
  return runExample(
    () => papersAgent(chooseModel(argv, scriptedPapersModel), new Papers(db)),
    REQUEST,
    print,
  );
}

if (isMain(import.meta.url)) process.exitCode = await main();
