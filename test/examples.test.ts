import { ConfigError, type Message } from "glassloop";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as calculator from "../examples/calculator.js";
import * as papers from "../examples/papers.js";
import * as typed from "../examples/typed-output.js";
import * as weather from "../examples/weather.js";
import { pairingViolations } from "./helpers/invariants.js";

/** Runs an example's `main` with a collector instead of the console. */
async function runMain(
  main: (argv: string[], print: (line: string) => void) => Promise<number>,
  argv: string[] = [],
) {
  const lines: string[] = [];
  const code = await main(argv, (line) => lines.push(line));
  return { code, out: lines.join("\n") };
}

const toolResults = (messages: readonly Message[]) =>
  messages.flatMap((m) => (m.role === "tool" ? [`${m.toolName}=${m.content}`] : []));

describe("examples/calculator.ts", () => {
  it("adds, multiplies and answers 420 through the real tools", async () => {
    const model = calculator.scriptedCalculatorModel();
    const result = await calculator.calculatorAgent(model).run(calculator.QUESTION);
    expect(result.output).toBe("420");
    expect(toolResults(result.messages)).toEqual(["add=210", "multiply=420"]);
    expect(model.remaining).toBe(0);
  });

  it("prints the events and the answer, exit code 0", async () => {
    const { code, out } = await runMain(calculator.main);
    expect(code).toBe(0);
    expect(out).toContain('→ add {"a":200,"b":10}');
    expect(out).toContain("← multiply ok: 420");
    expect(out).toContain("run_end     ok");
    expect(out.trimEnd().endsWith("answer: 420")).toBe(true);
  });

  it("reports an unknown model provider clearly, exit code 2", async () => {
    const { code, out } = await runMain(calculator.main, ["--model", "nope:some-model"]);
    expect(code).toBe(2);
    expect(out).toMatch(/^error: Unknown model provider "nope"/);
    const missing = await runMain(calculator.main, ["--model"]);
    expect(missing.code).toBe(2);
    expect(missing.out).toContain("--model needs a value");
  });

  it("a model string goes through resolveModel at construction", () => {
    expect(() => calculator.calculatorAgent("nope:x")).toThrow(ConfigError);
  });
});

describe("examples/weather.ts", () => {
  it("looks up Beijing's demo data and converts 22 °C to 71.6 °F", async () => {
    const model = weather.scriptedWeatherModel("Beijing");
    const result = await weather.weatherAgent(model).run(weather.question("Beijing"));
    expect(toolResults(result.messages)).toEqual([
      'get_weather={"city":"Beijing","tempC":22,"demo":true}',
      'celsius_to_fahrenheit={"fahrenheit":71.6}',
    ]);
    expect(result.output).toContain("71.6 °F");
    expect(result.output).toContain("demo data");
  });

  it("converts Shanghai's 26 °C to 78.8 °F", async () => {
    const result = await weather
      .weatherAgent(weather.scriptedWeatherModel("Shanghai"))
      .run(weather.question("Shanghai"));
    expect(toolResults(result.messages)).toContain('celsius_to_fahrenheit={"fahrenheit":78.8}');
    expect(result.output).toContain("78.8 °F");
  });

  it("an unsupported city is a ToolError the model reads, and the answer admits the limit", async () => {
    const { code, out } = await runMain(weather.main, ["--city", "Tokyo"]);
    expect(code).toBe(0);
    expect(out).toContain(
      '← get_weather error: No demo weather for "Tokyo". Only Beijing and Shanghai are available.',
    );
    expect(out).toMatch(/answer: I can't look up Tokyo/);
  });

  it("celsius outside [-100, 100] is refused by the schema before the converter runs", async () => {
    const { ScriptedModel } = await import("glassloop/testing");
    const model = new ScriptedModel([
      { toolCalls: [{ name: "celsius_to_fahrenheit", args: { celsius: 10000 } }] },
      { text: "That temperature is out of range." },
    ]);
    const result = await weather.weatherAgent(model).run("Convert 10000 °C.");
    const refusal = result.messages.find((m) => m.role === "tool");
    expect(refusal).toMatchObject({ isError: true });
    expect(refusal?.content).toContain("celsius: Too big: expected number to be <=100");
  });
});

describe("examples/papers.ts (hidden context)", () => {
  it("saves through the injected db handle, which the model never sees", async () => {
    const db = new papers.PaperDb("postgres://librarian:s3cret@db.internal/papers");
    const model = papers.scriptedPapersModel();
    const result = await papers.papersAgent(model, new papers.Papers(db)).run(papers.REQUEST);
    expect(db.size).toBe(1);
    expect(db.search("transformer")).toEqual([
      {
        id: 1,
        title: "Attention Is All You Need",
        body: "We propose the Transformer, based solely on attention.",
      },
    ]);
    expect(toolResults(result.messages)).toEqual([
      'save_paper={"saved":1,"title":"Attention Is All You Need"}',
      'find_papers=[{"id":1,"title":"Attention Is All You Need"}]',
    ]);
    expect(result.output).toContain("1 paper on attention");
    const seen = JSON.stringify(model.requests);
    expect(seen).not.toContain("s3cret");
    expect(seen).not.toContain("connectionString");
    const save = model.requests[0]?.tools.find((t) => t.name === "save_paper");
    expect(Object.keys((save?.parameters.properties ?? {}) as object)).toEqual(["title", "body"]);
    expect(pairingViolations(result.messages)).toEqual([]);
  });

  it("the agent refuses a context that is not a Papers", () => {
    expect(() => papers.papersAgent(papers.scriptedPapersModel(), {} as papers.Papers)).toThrow(
      /Tool "save_paper" requires an instance of Papers/,
    );
  });

  it("main prints the run and the answer", async () => {
    const { code, out } = await runMain(papers.main);
    expect(code).toBe(0);
    expect(out).toContain('← save_paper ok: {"saved":1');
    expect(out).not.toContain("s3cret");
  });
});

describe("examples/typed-output.ts", () => {
  it("returns a typed object through final_result, after feedback on a plain-text answer", async () => {
    const model = typed.scriptedTypedModel();
    const result = await typed.typedCalculatorAgent(model).run(calculator.QUESTION);
    expectTypeOf(result.output).toEqualTypeOf<{ answer: number; steps: string[] }>();
    expect(result.output).toEqual({ answer: 420, steps: ["200 + 10 = 210", "210 × 2 = 420"] });
    expect(result.finishedBy).toBe("final_result");
    // The text answer did not end the run: the model was told to call final_result.
    expect(model.requests[3]?.messages.at(-1)).toMatchObject({ role: "user" });
    expect(JSON.stringify(model.requests[3]?.messages.at(-1))).toContain("final_result");
  });

  it("main prints the typed fields", async () => {
    const { code, out } = await runMain(typed.main);
    expect(code).toBe(0);
    expect(out.trimEnd().endsWith("answer: 420 (200 + 10 = 210; 210 × 2 = 420)")).toBe(true);
  });
});
