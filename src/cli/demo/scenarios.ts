/**
 * The seeds' worked examples as agents for `glassloop demo`. Each agent is built exactly as its
 * recording was made (same instructions, tools and settings), because a replay stops at the first
 * request that differs from the recorded one.
 */
import { z } from "zod";
import { Agent } from "../../agent/agent.js";
import type { Model } from "../../models/model.js";
import { calculatorTool } from "../../tools/builtin/calculator.js";
import { tool } from "../../tools/tool.js";
import { ToolRegistry } from "../../tools/tool-registry.js";

/** One answer of the recorded model, as the seed printed it. */
export interface SeedAnswer {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: string }[];
}

/** A seed example: the agent, the task, and the model answers its recording holds. */
export interface DemoScenario {
  /** The recording is `recordings/<name>.jsonl`. */
  name: string;
  title: string;
  /** Where the replayed answers come from, said plainly. */
  provenance: string;
  input: string;
  /** The model the seed used (the recording's `openai:<name>`). */
  recordedModel: string;
  parallelToolCalls?: boolean;
  /** The seed's model answers, in order (the recorder serves them; the demo replays the recording). */
  answers: SeedAnswer[];
  agent(model: Model): Agent<undefined, unknown>;
}

const numberPair = z.object({ a: z.number(), b: z.number() });

/** Seed 000: the GAME calculator with add, multiply and a terminal finish tool. */
function seed000Agent(model: Model): Agent<undefined, unknown> {
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
    name: "seed000-calculator",
    instructions:
      "Perform arithmetic using the add and multiply tools. When you have the final answer, call finish with it.",
    model,
    tools,
    modelSettings: { toolChoice: "required", maxOutputTokens: 1024 },
  }) as Agent<undefined, unknown>;
}

/** Seed 004's weather demo data, verbatim. */
export const SEED004_WEATHER: Record<string, string> = {
  北京: "晴，15~25℃，微风",
  上海: "多云，18~28℃，东南风3级",
  深圳: "阵雨，22~30℃，南风4级",
};

/** Seed 004: a helpful assistant with a weather lookup and a calculator. */
function seed004Agent(model: Model): Agent<undefined, unknown> {
  const searchWeather = tool({
    name: "search_weather",
    description: "查询某个城市的当前天气情况。",
    input: z.object({ city: z.string().describe("城市名称，例如：北京、上海") }),
    run: ({ city }) => SEED004_WEATHER[city] ?? `未找到${city}的天气信息。`,
  });
  return new Agent({
    name: "seed004-assistant",
    instructions: "你是一个有帮助的AI助手，可以调用工具来解决问题。",
    model,
    tools: [searchWeather, calculatorTool()],
    modelSettings: { temperature: 0.1 },
  });
}

const SEED004 = "gpt-3.5-turbo's, as printed in seed 004 (punctuation the page lost restored)";

/** The demo, in order. */
export const SCENARIOS: readonly DemoScenario[] = [
  {
    name: "seed000-calculator",
    title: "seed 000: the GAME calculator (add, multiply, finish)",
    provenance: "gpt-4o's, as printed in seed 000",
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
    agent: seed000Agent,
  },
  {
    name: "seed004-calculator",
    title: "seed 004, example 1: a calculation with the built-in calculator",
    provenance: SEED004,
    input: "(12 + 8) * 2 等于多少？",
    recordedModel: "openai:gpt-3.5-turbo",
    answers: [
      {
        toolCalls: [{ id: "call_seed004_calc", name: "calculator", arguments: '{"expression":"(12+8)*2"}' }],
      },
      { text: "(12 + 8) * 2 等于 40。" },
    ],
    agent: seed004Agent,
  },
  {
    name: "seed004-weather",
    title: "seed 004, example 2: two lookups, then a comparison",
    provenance: SEED004,
    input: "我想知道北京和上海的天气，然后告诉我哪里更暖和。",
    recordedModel: "openai:gpt-3.5-turbo",
    answers: [
      { toolCalls: [{ id: "call_seed004_bj", name: "search_weather", arguments: '{"city":"北京"}' }] },
      { toolCalls: [{ id: "call_seed004_sh", name: "search_weather", arguments: '{"city":"上海"}' }] },
      {
        text: "根据查询结果：\n北京：晴，15~25℃。\n上海：多云，18~28℃。\n上海的最高温度和最低温度都高于北京，因此上海更暖和。",
      },
    ],
    agent: seed004Agent,
  },
  {
    name: "seed004-hello",
    title: "seed 004, example 3: an answer without tools",
    provenance: SEED004,
    input: "你好，请介绍一下你自己。",
    recordedModel: "openai:gpt-3.5-turbo",
    answers: [
      {
        text: "你好！我是一个AI助手，可以通过调用工具来帮助你解决问题，例如查询天气或进行数学计算。请问有什么可以帮您的吗？",
      },
    ],
    agent: seed004Agent,
  },
];
