/**
 * The weather + converter runner's acceptance list, as tests: the runner with
 * validated dispatch, two budgets and explicit failure.
 */
import { Agent, BudgetExceededError, ToolError, tool } from "glassloop";
import { FunctionModel, type RecordedRequest, ScriptedModel } from "glassloop/testing";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { capture, expectEveryCallAnswered } from "../helpers/core.js";

const DEMO: Record<string, number> = { Beijing: 22, Shanghai: 26 };
const weatherRun = vi.fn(({ city }: { city: string }) => {
  const temp = DEMO[city];
  if (temp === undefined) {
    throw new ToolError(`No data for ${city}: this demo only knows Beijing and Shanghai.`);
  }
  return { city, temp_c: temp, demo: true };
});
const convertRun = vi.fn(({ celsius }: { celsius: number }) => ({
  fahrenheit: Math.round(((celsius * 9) / 5 + 32) * 100) / 100,
}));
const getWeather = tool({
  name: "get_weather",
  description: "Demo weather for Beijing or Shanghai (not live data).",
  input: z.object({ city: z.string().describe("City name") }),
  run: weatherRun,
});
const convert = tool({
  name: "convert",
  description: "Converts Celsius to Fahrenheit.",
  input: z.object({ celsius: z.number().min(-100).max(100) }),
  run: convertRun,
});
const weatherAgent = (model: ScriptedModel | FunctionModel, maxSteps = 8) =>
  new Agent({
    instructions: "Use the tools when needed; never invent tool results.",
    model,
    tools: [getWeather, convert],
    limits: { maxSteps, maxToolCalls: 16 },
  });

/** The content of the last message the model was sent. */
const lastContent = (request: RecordedRequest) => request.messages.at(-1)?.content ?? "";

beforeEach(() => {
  weatherRun.mockClear();
  convertRun.mockClear();
});

describe("the weather runner's acceptance list", () => {
  it('answers "hello" without calling a tool', async () => {
    const model = new ScriptedModel([{ text: "Hello! Ask me about the demo weather." }]);
    const result = await weatherAgent(model).run("你好");
    expect(result.output).toBe("Hello! Ask me about the demo weather.");
    expect(result.usage.toolCalls).toBe(0);
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["get_weather", "convert"]);
    expect(weatherRun).not.toHaveBeenCalled();
  });

  it("an unsupported city: the ToolError reaches the model and the answer admits the limit", async () => {
    const model = new FunctionModel((request, i) => {
      if (i === 0) return { toolCalls: [{ name: "get_weather", args: { city: "Paris" } }] };
      // The answer is built from what the model was actually told.
      return { text: `I can't give you real weather for Paris. ${lastContent(request)}` };
    });
    const result = await weatherAgent(model).run("What's the weather in Paris?");
    expect(weatherRun).toHaveBeenCalledTimes(1);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "No data for Paris: this demo only knows Beijing and Shanghai.",
      isError: true,
    });
    expect(result.output).toBe(
      "I can't give you real weather for Paris. No data for Paris: this demo only knows Beijing and Shanghai.",
    );
  });

  it("refuses an unknown tool, invalid JSON and celsius: 10000 without running a function", async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "u", name: "get_stock_price", args: { symbol: "X" } },
          { id: "j", name: "convert", args: '{"celsius": 22' },
          { id: "r", name: "convert", args: { celsius: 10000 } },
        ],
      },
      { text: "Those calls were refused." },
    ]);
    const result = await weatherAgent(model).run("Break things.");
    expect(weatherRun).not.toHaveBeenCalled();
    expect(convertRun).not.toHaveBeenCalled();
    expect(result.usage.toolCalls).toBe(0);
    const refusals = result.messages.filter((m) => m.role === "tool");
    expect(refusals.map((m) => [m.toolCallId, m.isError])).toEqual([
      ["u", true],
      ["j", true],
      ["r", true],
    ]);
    expect(refusals[0]?.content).toBe(
      'Unknown tool "get_stock_price". Available tools: get_weather, convert.',
    );
    expect(refusals[1]?.content).toMatch(/^Arguments for convert are not valid JSON/);
    expect(refusals[2]?.content).toBe(
      "Invalid arguments for convert: celsius: Too big: expected number to be <=100",
    );
    expect(result.output).toBe("Those calls were refused.");
  });

  it("maxSteps: 1 on a multi-step task fails explicitly instead of pretending", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get_weather", args: { city: "Beijing" } }] },
      { toolCalls: [{ name: "convert", args: { celsius: 22 } }] },
      { text: "Beijing (demo data): 22°C / 71.6°F." },
    ]);
    const { result, error } = await capture(() =>
      weatherAgent(model, 1).run("Demo temperature in Beijing, in Fahrenheit."),
    );
    expect(result).toBeUndefined();
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({ limit: "maxSteps", used: 1, max: 1 });
    expect(JSON.stringify(error?.messages)).not.toContain("71.6");
    expectEveryCallAnswered(error?.messages ?? []);
  });

  it("and the demo itself: weather, then conversion, then the demo-data answer", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "get_weather", args: { city: "Beijing" } }] },
      { toolCalls: [{ name: "convert", args: { celsius: 22 } }] },
      { text: "Beijing (demo data): 22°C / 71.6°F." },
    ]);
    const result = await weatherAgent(model).run("Demo temperature in Beijing, in Fahrenheit.");
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      '{"city":"Beijing","temp_c":22,"demo":true}',
      '{"fahrenheit":71.6}',
    ]);
    expect(result.output).toBe("Beijing (demo data): 22°C / 71.6°F.");
  });
});
