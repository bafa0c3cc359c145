/**
 * The worked examples of `glassloop demo` as agents. Each agent is built exactly as its
 * recording was made (same instructions, tools and settings), because a replay stops at the first
 * request that differs from the recorded one.
 */
import { z } from "zod";
import { Agent } from "../../agent/agent.js";
import type { Limits } from "../../core/vocabulary/limits.js";
import type { Model } from "../../models/model.js";
import type { CanonicalRequest } from "../../providers/replay/canonical-request.js";
import type { Store } from "../../store/store.js";
import { calculatorTool } from "../../tools/builtin/calculator.js";
import { tool } from "../../tools/tool.js";
import { ToolRegistry } from "../../tools/tool-registry.js";

/** One answer of the recorded model. */
export interface RecordedAnswer {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
}

/** A demo example: the agent, the task, and the model answers its recording holds. */
export interface DemoScenario {
  /** The recording is `recordings/<name>.jsonl`. */
  name: string;
  title: string;
  /** Where the replayed answers come from, said plainly. */
  provenance: string;
  input: string;
  /** The model that gave the recorded answers (the recording's `openai:<name>`). */
  recordedModel: string;
  parallelToolCalls?: boolean;
  /** The recorded model answers, in order (the recorder serves them; the demo replays the recording). */
  answers: RecordedAnswer[];
  /** The agent's system prompt (what a recording of it is recognised by, with its tools). */
  instructions: string;
  /** The example's agent on `model`; `extra` adds a store or limits (`glassloop run` replaying it). */
  agent(model: Model, extra?: ScenarioExtras): Agent<undefined, unknown>;
}

/** What `glassloop run` adds to an example's agent when it replays the example's recording. */
export interface ScenarioExtras {
  store?: Store;
  limits?: Limits;
}

const numberPair = z.object({ a: z.number(), b: z.number() });

const CALCULATOR_INSTRUCTIONS =
  "Perform arithmetic using the add and multiply tools. When you have the final answer, call finish with it.";
const ASSISTANT_INSTRUCTIONS = "You are a helpful AI assistant that can call tools to solve problems.";

/** The calculator agent with add, multiply and a terminal finish tool. */
function calculatorAgent(model: Model, extra: ScenarioExtras = {}): Agent<undefined, unknown> {
  const add = tool({
    name: "add",
    description: "Adds two numbers.",
    input: numberPair,
    run: ({ a, b }) => a + b,
  });
  const multiply = tool({
    name: "multiply",
    description: "Multiplies two numbers.",
    input: numberPair,
    run: ({ a, b }) => a * b,
  });
  const finish = tool({
    name: "finish",
    description: "Provide the final answer to the user and end the task.",
    input: z.object({ answer: z.string() }),
    run: ({ answer }) => answer,
  });
  const tools = new ToolRegistry().register(add).register(multiply).register(finish, { terminal: true });
  return new Agent({
    name: "calculator",
    instructions: CALCULATOR_INSTRUCTIONS,
    model,
    tools,
    modelSettings: { toolChoice: "required", maxOutputTokens: 1024 },
    ...extra,
  }) as Agent<undefined, unknown>;
}

/** The assistant's demo weather data (the example's answers, translated from Chinese). */
export const DEMO_WEATHER: Record<string, string> = {
  Beijing: "sunny, 15-25°C, light breeze",
  Shanghai: "cloudy, 18-28°C, southeast wind force 3",
  Shenzhen: "showers, 22-30°C, south wind force 4",
};

/** A helpful assistant with a weather lookup and a calculator. */
function assistantAgent(model: Model, extra: ScenarioExtras = {}): Agent<undefined, unknown> {
  const searchWeather = tool({
    name: "search_weather",
    description: "Looks up the current weather in a city.",
    input: z.object({ city: z.string().describe("The city's name, e.g. Beijing, Shanghai") }),
    run: ({ city }) => DEMO_WEATHER[city] ?? `No weather found for ${city}.`,
  });
  return new Agent({
    name: "assistant",
    instructions: ASSISTANT_INSTRUCTIONS,
    model,
    tools: [searchWeather, calculatorTool()],
    modelSettings: { temperature: 0.1 },
    ...extra,
  });
}

// The assistant's examples were recorded in Chinese; their prompts, tool texts and answers are given
// here in English (decisions and numbers unchanged), so every reader can follow them and every font shows them.
const ASSISTANT_ANSWERS = "gpt-3.5-turbo's recorded answers, translated from Chinese";

/** The demo, in order. */
export const SCENARIOS: readonly DemoScenario[] = [
  {
    name: "calculator",
    title: "a calculator agent with add, multiply and finish",
    provenance: "gpt-4o's recorded answers (the same tool-call ids)",
    input: "Add 200 and 10, then multiply the result by 2.",
    recordedModel: "openai:gpt-4o",
    parallelToolCalls: false,
    answers: [
      { toolCalls: [{ id: "call_wYPzGCwLuc71cK7q2Ok81OzF", name: "add", arguments: '{"a":200,"b":10}' }] },
      {
        toolCalls: [{ id: "call_5JD4McfNm0m68Poedsm8uODO", name: "multiply", arguments: '{"a":210,"b":2}' }],
      },
      { toolCalls: [{ id: "call_nbIGeKvgWtXPh4YlioZxfiyj", name: "finish", arguments: '{"answer":"420"}' }] },
    ],
    instructions: CALCULATOR_INSTRUCTIONS,
    agent: calculatorAgent,
  },
  {
    name: "calculator-builtin",
    title: "an assistant, example 1: a calculation with the built-in calculator",
    provenance: ASSISTANT_ANSWERS,
    input: "What is (12 + 8) * 2?",
    recordedModel: "openai:gpt-3.5-turbo",
    answers: [
      {
        toolCalls: [{ id: "call_demo_calc", name: "calculator", arguments: '{"expression":"(12+8)*2"}' }],
      },
      { text: "(12 + 8) * 2 is 40." },
    ],
    instructions: ASSISTANT_INSTRUCTIONS,
    agent: assistantAgent,
  },
  {
    name: "weather",
    title: "an assistant, example 2: two lookups, then a comparison",
    provenance: ASSISTANT_ANSWERS,
    input: "What is the weather in Beijing and in Shanghai, and which one is warmer?",
    recordedModel: "openai:gpt-3.5-turbo",
    answers: [
      { toolCalls: [{ id: "call_demo_bj", name: "search_weather", arguments: '{"city":"Beijing"}' }] },
      { toolCalls: [{ id: "call_demo_sh", name: "search_weather", arguments: '{"city":"Shanghai"}' }] },
      {
        text: "From the lookups:\nBeijing: sunny, 15-25°C.\nShanghai: cloudy, 18-28°C.\nShanghai's high and low are both above Beijing's, so Shanghai is warmer.",
      },
    ],
    instructions: ASSISTANT_INSTRUCTIONS,
    agent: assistantAgent,
  },
  {
    name: "hello",
    title: "an assistant, example 3: an answer without tools",
    provenance: ASSISTANT_ANSWERS,
    input: "Hello, please introduce yourself.",
    recordedModel: "openai:gpt-3.5-turbo",
    answers: [
      {
        text: "Hello! I am an AI assistant. I can help you by calling tools, for example to look up the weather or to do arithmetic. What can I do for you?",
      },
    ],
    instructions: ASSISTANT_INSTRUCTIONS,
    agent: assistantAgent,
  },
];

/** A model for reading an example agent's settings; it is never called. */
const UNCALLED: Model = {
  id: "demo:settings",
  generate: () => Promise.reject(new Error("not a model to call")),
};

/**
 * The demo example whose agent made a recording, told by the recorded first request's
 * instructions and tool names (and task); undefined for any other recording. The demo's agents and tools
 * are harmless (arithmetic, a fixed weather table), so a recording may pick one.
 */
export function scenarioOfRequest(request: CanonicalRequest): DemoScenario | undefined {
  const tools = request.tools.map((t) => t.name).sort();
  const first = request.messages.find((m) => m.role === "user");
  const task = first?.role === "user" ? first.content.join("") : undefined;
  const matching = SCENARIOS.filter((scenario) => {
    const agent = scenario.agent(UNCALLED);
    const names = agent.registry
      .list()
      .map((t) => t.name)
      .sort();
    return scenario.instructions === request.instructions && names.join() === tools.join();
  });
  // The assistant's examples share one agent: the recorded task tells them apart.
  return matching.find((scenario) => scenario.input === task) ?? matching[0];
}
