/**
 * Seed 001's experiment: one agent with six tools versus a router over two specialists with three
 * tools each. The seed reports that routing picks the right tools more often; this measures it.
 *
 *   npx tsx examples/routing-experiment.ts --model openai:gpt-4o-mini   # the real experiment
 *   npx tsx examples/routing-experiment.ts                              # offline keyword baseline
 *
 * Offline there is no language model: a keyword matcher stands in for one (it scores tool
 * descriptions by shared words), so the numbers show the harness works, not what an LLM does.
 */
import { Agent, type Model, Router, tool } from "glassloop";
import { FunctionModel, type RecordedRequest, type ScriptStep } from "glassloop/testing";
import { z } from "zod";
import { chooseModel, isMain, type Print } from "./cli.js";

const text = (description: string) => z.object({ query: z.string().describe(description) });
const mathTools = [
  tool({
    name: "calculate",
    description: "Evaluate an arithmetic expression: add, multiply, divide numbers.",
    input: text("The expression"),
    run: ({ query }) => `calculated ${query}`,
  }),
  tool({
    name: "convert_units",
    description: "Convert a quantity between units: km miles, kg pounds, celsius fahrenheit.",
    input: text("The quantity and units"),
    run: ({ query }) => `converted ${query}`,
  }),
  tool({
    name: "percentage",
    description: "Compute a percentage, a discount or a tip of an amount.",
    input: text("The amount and percent"),
    run: ({ query }) => `percent ${query}`,
  }),
];
const lookupTools = [
  tool({
    name: "search",
    description: "Search the web for facts about a topic, a person or a place.",
    input: text("The search terms"),
    run: ({ query }) => `found ${query}`,
  }),
  tool({
    name: "weather",
    description: "Current weather and temperature forecast for a city.",
    input: text("The city"),
    run: ({ query }) => `sunny in ${query}`,
  }),
  tool({
    name: "current_time",
    description: "The current date and time in a city or time zone.",
    input: text("The city or zone"),
    run: ({ query }) => `noon in ${query}`,
  }),
];

/** Labelled requests: which specialist (and so which tools) should handle each. */
export const CASES: { input: string; expert: "math" | "lookup" }[] = [
  { input: "What is 17 multiplied by 23?", expert: "math" },
  { input: "How many miles is 42 km?", expert: "math" },
  { input: "What is a 15% tip on a 80 dollar bill?", expert: "math" },
  { input: "Convert 100 fahrenheit to celsius", expert: "math" },
  { input: "Divide 144 by 12 and add 7", expert: "math" },
  { input: "Who wrote the novel Dune?", expert: "lookup" },
  { input: "Will it rain in Shanghai tomorrow?", expert: "lookup" },
  { input: "What time is it in Tokyo right now?", expert: "lookup" },
  { input: "Find facts about the Eiffel Tower", expert: "lookup" },
  { input: "What is the temperature forecast for Beijing?", expert: "lookup" },
];

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z]+/g) ?? []);

/** The offline stand-in: calls the tool whose description shares most words with the request. */
export function keywordModel(): Model {
  return new FunctionModel(
    (request: RecordedRequest): ScriptStep => {
      const last = request.messages.at(-1);
      if (last?.role !== "user") return { text: "done" };
      const asked = words(last.content);
      const score = (d: string) => [...words(d)].filter((w) => asked.has(w)).length;
      const best = [...request.tools].sort((a, b) => score(b.description) - score(a.description))[0];
      return best ? { toolCalls: [{ name: best.name, args: { query: last.content } }] } : { text: "no tool" };
    },
    { id: "keyword:baseline" },
  );
}

/** Accuracy of both set-ups on CASES: the share of requests whose first tool belongs to the right specialist. */
export async function measure(model: () => Model): Promise<{ single: number; routed: number }> {
  const toolsOf = { math: mathTools.map((t) => t.name), lookup: lookupTools.map((t) => t.name) };
  let single = 0;
  let routed = 0;
  for (const c of CASES) {
    let first: string | undefined;
    const agent = new Agent({
      model: model(),
      tools: [...mathTools, ...lookupTools],
      limits: { maxSteps: 2 },
    });
    await agent
      .run(c.input, {
        onEvent: (e) => {
          if (e.type === "tool_call") first ??= e.toolName;
        },
      })
      .catch(() => {});
    if (first && toolsOf[c.expert].includes(first)) single++;

    const router = new Router({
      model: model(),
      specialists: {
        math: {
          description: "Arithmetic, unit conversion, percentages.",
          agent: new Agent({ model: model(), tools: mathTools, limits: { maxSteps: 2 } }),
        },
        lookup: {
          description: "Facts, weather, time in places.",
          agent: new Agent({ model: model(), tools: lookupTools, limits: { maxSteps: 2 } }),
        },
      },
    });
    const result = await router.run(c.input).catch(() => undefined);
    if (result?.agent === c.expert) routed++;
  }
  return { single: single / CASES.length, routed: routed / CASES.length };
}

/** Prints the two accuracies. */
export async function main(
  argv: readonly string[] = process.argv.slice(2),
  print: Print = console.log,
): Promise<number> {
  const live = argv.includes("--model");
  print(
    live
      ? "Measuring with a real model…"
      : "No --model: using the offline keyword baseline (not a language model).",
  );
  const { single, routed } = await measure(() => chooseModel(argv, keywordModel));
  print(
    `one agent, six tools:          ${(single * 100).toFixed(0)}% right tool family (${CASES.length} requests)`,
  );
  print(`router over two specialists:   ${(routed * 100).toFixed(0)}% right specialist`);
  return 0;
}

if (isMain(import.meta.url)) process.exitCode = await main();
