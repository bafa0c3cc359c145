import { ConfigError, tool } from "glassloop";
import { describe, expect, it } from "vitest";
import { z } from "zod";

describe("tool(): one zod schema is the source of the JSON Schema", () => {
  it("derives object, properties, required, descriptions and closes every object", () => {
    const weather = tool({
      name: "get_weather",
      description: "Looks up demo weather.",
      input: z.object({
        city: z.string().describe("City name, e.g. Beijing"),
        units: z.enum(["c", "f"]).default("c").describe("Temperature units"),
        window: z.object({ days: z.number().int().min(1) }).optional(),
      }),
      run: ({ city }) => city,
    });
    expect(weather.parameters).toEqual({
      type: "object",
      properties: {
        city: { type: "string", description: "City name, e.g. Beijing" },
        units: { type: "string", enum: ["c", "f"], default: "c", description: "Temperature units" },
        window: {
          type: "object",
          properties: { days: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER } },
          required: ["days"],
          additionalProperties: false,
        },
      },
      // A field with a default is optional for the model: the schema describes what it must send.
      required: ["city"],
      additionalProperties: false,
    });
    expect(weather.parameters).not.toHaveProperty("$schema");
  });

  it("closes objects nested in arrays and unions too", () => {
    const t = tool({
      name: "batch",
      description: "Batch.",
      input: z.object({
        items: z.array(z.object({ id: z.string() })),
        either: z.union([z.object({ a: z.number() }), z.object({ b: z.number() })]),
      }),
      run: () => null,
    });
    const json = JSON.stringify(t.parameters);
    const objects = json.match(/"type":"object"/g)?.length ?? 0;
    const closed = json.match(/"additionalProperties":false/g)?.length ?? 0;
    expect(objects).toBe(4);
    expect(closed).toBe(4);
  });

  it("keeps the definition's name, description and schema, and is frozen", () => {
    const input = z.object({ a: z.number() });
    const t = tool({ name: "a-b_C9", description: "Desc.", input, run: ({ a }) => a });
    expect(t.name).toBe("a-b_C9");
    expect(t.description).toBe("Desc.");
    expect(t.input).toBe(input);
    expect(t.terminal).toBe(false);
    expect(t.idempotent).toBe(false);
    expect(Object.isFrozen(t)).toBe(true);
  });

  it("never puts the declared context in the JSON Schema", () => {
    class Secrets {
      constructor(readonly apiKey: string) {}
    }
    const t = tool({
      name: "call_api",
      description: "Calls the API.",
      input: z.object({ q: z.string() }),
      context: Secrets,
      run: (args, { context }) => `${args.q}:${context.apiKey.length}`,
    });
    expect(Object.keys(t.parameters.properties as object)).toEqual(["q"]);
    expect(JSON.stringify(t.parameters)).not.toMatch(/apiKey|Secrets|context/);
  });
});

describe("tool(): refuses bad definitions with a clear ConfigError", () => {
  const input = z.object({});
  const run = () => null;

  it.each(["", "has space", "dot.name", "slash/name", "ünicode", "x".repeat(65)])(
    "refuses the name %j",
    (name) => {
      expect(() => tool({ name, description: "d", input, run })).toThrowError(ConfigError);
      expect(() => tool({ name, description: "d", input, run })).toThrowError(/\^\[a-zA-Z0-9_-\]\{1,64\}\$/);
    },
  );

  it.each(["a", "A_b-9", "x".repeat(64)])("accepts the name %j", (name) => {
    expect(tool({ name, description: "d", input, run }).name).toBe(name);
  });

  it.each([
    ["a string", z.string()],
    ["a number", z.number()],
    ["an array", z.array(z.string())],
  ])("refuses %s as input: tool arguments are a JSON object", (_label, schema) => {
    expect(() => tool({ name: "t", description: "d", input: schema, run })).toThrowError(ConfigError);
    expect(() => tool({ name: "t", description: "d", input: schema, run })).toThrowError(
      /Tool "t": input must be a z\.object/,
    );
  });

  it("refuses a schema JSON Schema cannot express, naming the tool", () => {
    const make = () => tool({ name: "when", description: "d", input: z.object({ at: z.date() }), run });
    expect(make).toThrowError(ConfigError);
    expect(make).toThrowError(/Tool "when": its input schema cannot be expressed as JSON Schema/);
  });

  it("refuses a run that is not a function", () => {
    const make = () => tool({ name: "t", description: "d", input, run: "nope" as unknown as () => null });
    expect(make).toThrowError(/Tool "t": run must be a function/);
  });

  it("refuses terminal: true, naming the way a tool ends the run (a registry entry)", () => {
    const definition = { name: "finish", description: "d", input, run, terminal: true };
    const make = () => tool(definition as Parameters<typeof tool>[0]);
    expect(make).toThrowError(ConfigError);
    expect(make).toThrowError(
      /Tool "finish": tool\(\) takes no "terminal".*register\(finish, \{ terminal: true \}\)/,
    );
  });

  it("refuses any key it does not take, instead of dropping it", () => {
    const definition = { name: "t", description: "d", input, run, timeout: 5_000 };
    const make = () => tool(definition as Parameters<typeof tool>[0]);
    expect(make).toThrowError(ConfigError);
    expect(make).toThrowError(/Tool "t": tool\(\) takes no "timeout" \(it takes name, .*timeoutMs/);
  });
});
