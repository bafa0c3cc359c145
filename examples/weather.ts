/**
 * A runner with two "hands": demo weather for Beijing and Shanghai, and a Celsius to
 * Fahrenheit converter whose schema keeps `celsius` in [-100, 100]. An unsupported city is a
 * ToolError the model reads and reports; out-of-range or malformed arguments never reach the tools.
 *
 *   npx tsx examples/weather.ts                      # scripted model, Beijing
 *   npx tsx examples/weather.ts --city Tokyo         # scripted model, an unsupported city
 *   npx tsx examples/weather.ts --model openai:gpt-4o-mini [--city Shanghai]
 */
import { Agent, type Model, ToolError, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { z } from "zod";
import { chooseModel, isMain, type Print, runExample } from "./cli.js";

/** Demo data, not live weather: °C by city. */
export const DEMO_TEMPERATURES: Readonly<Record<string, number>> = { Beijing: 22, Shanghai: 26 };

/** Demo weather for the cities in DEMO_TEMPERATURES; any other city is a ToolError for the model. */
export const getWeather = tool({
  name: "get_weather",
  description: "Simulated weather for Beijing or Shanghai (demo data, not live weather).",
  input: z.object({ city: z.string().min(1).describe('City name in English, e.g. "Beijing"') }),
  run: ({ city }) => {
    const tempC = DEMO_TEMPERATURES[city];
    if (tempC === undefined) {
      throw new ToolError(
        `No demo weather for "${city}". Only ${Object.keys(DEMO_TEMPERATURES).join(" and ")} are available.`,
      );
    }
    return { city, tempC, demo: true };
  },
});

/** Celsius to Fahrenheit, rounded to two decimals; the schema refuses values outside [-100, 100]. */
export const celsiusToFahrenheit = tool({
  name: "celsius_to_fahrenheit",
  description: "Converts degrees Celsius to degrees Fahrenheit.",
  input: z.object({ celsius: z.number().min(-100).max(100).describe("Temperature in °C") }),
  run: ({ celsius }) => ({ fahrenheit: Math.round(((celsius * 9) / 5) * 100 + 3200) / 100 }),
});

/** The weather agent, for any model. */
export function weatherAgent(model: Model | string): Agent {
  return new Agent({
    name: "weather",
    instructions:
      "You answer questions about the weather with the tools; never make up tool results. " +
      "The weather tool returns demo data: always say so.",
    model,
    tools: [getWeather, celsiusToFahrenheit],
    limits: { maxSteps: 8, maxToolCalls: 16 },
  });
}

/** The question for `city`. */
export function question(city: string): string {
  return `Look up the demo temperature in ${city} and convert it to Fahrenheit. Say clearly that it is demo data.`;
}

/** What a tool-calling model answers for `city`: the two tools, or the admission that it cannot. */
export function scriptedWeatherModel(city: string): ScriptedModel {
  const tempC = DEMO_TEMPERATURES[city];
  if (tempC === undefined) {
    return new ScriptedModel(
      [
        { toolCalls: [{ name: "get_weather", args: { city } }] },
        {
          text: `I can't look up ${city}: the weather tool only has demo data for Beijing and Shanghai, so I have no temperature to convert.`,
        },
      ],
      { id: "scripted:weather" },
    );
  }
  // What the converter will answer, as the recorded model read it.
  const fahrenheit = { Beijing: 71.6, Shanghai: 78.8 }[city];
  return new ScriptedModel(
    [
      { toolCalls: [{ name: "get_weather", args: { city } }] },
      { toolCalls: [{ name: "celsius_to_fahrenheit", args: { celsius: tempC } }] },
      { text: `${city}: ${tempC} °C, which is ${fahrenheit} °F. Note: this is demo data, not live weather.` },
    ],
    { id: "scripted:weather" },
  );
}

/** Runs the example (`--city NAME`, `--model provider:model`). Returns the exit code. */
export function main(argv: readonly string[] = process.argv.slice(2), print?: Print): Promise<number> {
  const i = argv.indexOf("--city");
  const city = i >= 0 ? (argv[i + 1] ?? "Beijing") : "Beijing";
  return runExample(
    () => weatherAgent(chooseModel(argv, () => scriptedWeatherModel(city))),
    question(city),
    print,
  );
}

if (isMain(import.meta.url)) process.exitCode = await main();
