/**
 * A routing experiment as an eval: one agent with six tools versus a router over two specialists
 * with three tools each. The claim under test is that routing picks the right tools more often; this
 * measures it, case by case, with intervals and a paired test.
 *
 *   npx tsx examples/routing-experiment.ts                              # offline: replays the recordings
 *   npx tsx examples/routing-experiment.ts --model openai:gpt-4o-mini   # live, with a real model
 *   npx tsx examples/routing-experiment.ts --record                     # record again (keyword baseline)
 *
 * The committed recordings (examples/recordings/routing-experiment/) were made with the offline stand-in,
 * a keyword matcher that scores tool descriptions by shared words: they show the harness works and
 * let CI replay it deterministically, not what an LLM does. Run it live for the real numbers.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, type Model, tool } from "glassloop";
import {
  compareResults,
  dataset,
  defineEval,
  type EvalDefinition,
  type EvalResult,
  evaluate,
  formatComparison,
  formatReport,
  newEvalId,
  replayEval,
  scorer,
} from "glassloop/evals";
import { Router } from "glassloop/multi";
import { FunctionModel, type RecordedRequest, type ScriptStep } from "glassloop/testing";
import { z } from "zod";
import { chooseModel, isMain, type Print } from "./cli.js";

const text = (description: string) => z.object({ query: z.string().describe(description) });
/** The math specialist's tools. */
export const mathTools = [
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
/** The lookup specialist's tools. */
export const lookupTools = [
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

/** Which specialist (and so which tools) should handle a request. */
export type Expert = "math" | "lookup";

/** The labelled requests: each case's `expected` is the specialist that should handle it. */
export const ROUTING = dataset<Expert>("routing", [
  { id: "multiply", input: "What is 17 multiplied by 23?", expected: "math" },
  { id: "km-to-miles", input: "How many miles is 42 km?", expected: "math" },
  { id: "tip", input: "What is a 15% tip on a 80 dollar bill?", expected: "math" },
  { id: "fahrenheit", input: "Convert 100 fahrenheit to celsius", expected: "math" },
  { id: "divide-add", input: "Divide 144 by 12 and add 7", expected: "math" },
  { id: "dune", input: "Who wrote the novel Dune?", expected: "lookup" },
  { id: "rain", input: "Will it rain in Shanghai tomorrow?", expected: "lookup" },
  { id: "tokyo-time", input: "What time is it in Tokyo right now?", expected: "lookup" },
  { id: "eiffel", input: "Find facts about the Eiffel Tower", expected: "lookup" },
  { id: "forecast", input: "What is the temperature forecast for Beijing?", expected: "lookup" },
]);

const FAMILY: Record<string, Expert> = {
  ...Object.fromEntries(mathTools.map((t) => [t.name, "math" as const])),
  ...Object.fromEntries(lookupTools.map((t) => [t.name, "lookup" as const])),
  transfer_to_math: "math",
  transfer_to_lookup: "lookup",
};

/** Routing accuracy: the first decision (a tool, or the router's hand-off) belongs to the right specialist. */
const routing = scorer<unknown, Expert>("routing", ({ trajectory, expected }) => {
  const first = trajectory.calls[0]?.name;
  const family = first === undefined ? undefined : FAMILY[first];
  return {
    score: family === expected ? 1 : 0,
    pass: family === expected,
    reason:
      first === undefined
        ? "no tool called"
        : `first call ${first} (${family ?? "unknown"}), expected ${expected}`,
  };
});

/** Every tool the agent ran (hand-offs aside) is one of the right specialist's. */
const rightTools = scorer<unknown, Expert>("right-tools", ({ trajectory, expected }) => {
  const used = trajectory.calls.filter((c) => !c.name.startsWith("transfer_to_"));
  const wrong = used.filter((c) => FAMILY[c.name] !== expected);
  if (used.length === 0) return { score: 0, pass: false, reason: "no tool ran" };
  return {
    score: (used.length - wrong.length) / used.length,
    pass: wrong.length === 0,
    reason:
      wrong.length === 0
        ? `ran ${used.map((c) => c.name).join(", ")}`
        : `ran ${wrong.map((c) => c.name).join(", ")} (not ${expected})`,
  };
});

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

const limits = { maxSteps: 2 };

/** One agent with all six tools. */
export const singleAgent: EvalDefinition<unknown, Expert> = defineEval<unknown, Expert>({
  name: "routing: one agent, six tools",
  agent: ({ model }) =>
    new Agent({ model: model ?? keywordModel(), tools: [...mathTools, ...lookupTools], limits }),
  dataset: ROUTING,
  scorers: [routing, rightTools],
});

/** A router over two specialists with three tools each (the split under test). */
export const routed: EvalDefinition<unknown, Expert> = defineEval<unknown, Expert>({
  name: "routing: router over two specialists",
  agent: ({ model }) => {
    const m = model ?? keywordModel();
    return new Router({
      model: m,
      specialists: {
        math: {
          description: "Arithmetic, unit conversion, percentages.",
          agent: new Agent({ model: m, tools: mathTools, limits }),
        },
        lookup: {
          description: "Facts, weather, time in places.",
          agent: new Agent({ model: m, tools: lookupTools, limits }),
        },
      },
    });
  },
  dataset: ROUTING,
  scorers: [routing, rightTools],
});

/** Where the committed recordings of both set-ups live. */
export const RECORDINGS = fileURLToPath(new URL("./recordings/routing-experiment", import.meta.url));

/** Runs both set-ups: replayed from `recordings` (offline), or live, writing each result where `outDirs` say. */
export async function measure(options: {
  model?: Model;
  recordings?: string;
  outDirs?: { single: string; router: string };
}): Promise<{ single: EvalResult; router: EvalResult }> {
  if (options.recordings !== undefined && options.model === undefined) {
    return {
      single: await replayEval(singleAgent, join(options.recordings, "single")),
      router: await replayEval(routed, join(options.recordings, "router")),
    };
  }
  const run = (definition: EvalDefinition<unknown, Expert>, outDir: string | undefined) =>
    evaluate({
      ...definition,
      ...(options.model && { model: options.model }),
      ...(outDir !== undefined && { outDir }),
    });
  return {
    single: await run(singleAgent, options.outDirs?.single),
    router: await run(routed, options.outDirs?.router),
  };
}

/** Where a live run's results go: beside `glassloop eval`'s, so `glassloop trace view` lists them. */
function liveDirs(): { single: string; router: string } {
  const id = newEvalId();
  return {
    single: join(".glassloop/evals", `${id}-single`),
    router: join(".glassloop/evals", `${id}-router`),
  };
}

/** Prints both reports and the router against the single agent, case by case. */
export async function main(
  argv: readonly string[] = process.argv.slice(2),
  print: Print = console.log,
): Promise<number> {
  const live = argv.includes("--model");
  const record = argv.includes("--record");
  print(
    live
      ? "Measuring with a real model…"
      : record
        ? `Recording with the offline keyword baseline (not a language model) into ${RECORDINGS}`
        : "No --model: replaying recordings of the offline keyword baseline (not a language model).",
  );
  // Recording starts from an empty folder, so no stale recording of an older case survives.
  if (!live && record) rmSync(RECORDINGS, { recursive: true, force: true });
  const { single, router } = live
    ? await measure({ model: chooseModel(argv, keywordModel), outDirs: liveDirs() })
    : record
      ? await measure({
          outDirs: { single: join(RECORDINGS, "single"), router: join(RECORDINGS, "router") },
        })
      : await measure({ recordings: RECORDINGS });
  const accuracy = (r: EvalResult) => r.summary.scorers.find((s) => s.scorer === "routing")?.passRate;
  print(formatReport(single));
  print("");
  print(formatReport(router));
  print("");
  print(formatComparison(compareResults(single, router)));
  print("");
  const [a, b] = [accuracy(single), accuracy(router)];
  const pct = (x: number | undefined) => `${((x ?? 0) * 100).toFixed(0)}%`;
  print(
    `one agent, six tools:          ${pct(a?.value)} right tool family [${pct(a?.lo)}, ${pct(a?.hi)}] (${ROUTING.cases.length} requests)`,
  );
  print(`router over two specialists:   ${pct(b?.value)} right specialist [${pct(b?.lo)}, ${pct(b?.hi)}]`);
  return 0;
}

if (isMain(import.meta.url)) process.exitCode = await main();
