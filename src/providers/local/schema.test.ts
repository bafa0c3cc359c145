import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolParameters } from "../../tools/json-schema.js";
import { toGrammarSchema } from "./schema.js";

const ANY = {
  oneOf: [
    { type: ["string", "number", "boolean", "null"] },
    { type: "object", additionalProperties: true },
    { type: "array" },
  ],
};

describe("toGrammarSchema", () => {
  it("keeps what the grammar can enforce from a zod tool schema and drops the rest", () => {
    const json = toolParameters(
      z.object({
        city: z.string().min(1).max(40).describe("City name"),
        units: z.enum(["metric", "imperial"]),
        days: z.number().int().min(1).max(7),
        when: z.iso.datetime(),
        tags: z.array(z.string()).max(3),
        note: z.string().nullable(),
        exact: z.literal("yes"),
      }),
      "weather",
    );
    expect(toGrammarSchema(json)).toEqual({
      type: "object",
      additionalProperties: false,
      properties: {
        city: { type: "string", minLength: 1, maxLength: 40, description: "City name" },
        units: { enum: ["metric", "imperial"] },
        days: { type: "integer" },
        when: { type: "string", format: "date-time" },
        tags: { type: "array", items: { type: "string" }, maxItems: 3 },
        note: { type: ["string", "null"] },
        exact: { const: "yes" },
      },
    });
  });

  it("rewrites definitions references to $defs and lifts the definitions to the root", () => {
    const schema = {
      type: "object",
      properties: { a: { $ref: "#/definitions/Point" }, b: { $ref: "#/$defs/Point" } },
      definitions: { Point: { type: "object", properties: { x: { type: "number" } } } },
    };
    expect(toGrammarSchema(schema)).toEqual({
      type: "object",
      properties: { a: { $ref: "#/$defs/Point" }, b: { $ref: "#/$defs/Point" } },
      additionalProperties: false,
      $defs: {
        Point: { type: "object", properties: { x: { type: "number" } }, additionalProperties: false },
      },
    });
  });

  it("accepts any value where the schema says nothing or cannot be followed", () => {
    expect(
      toGrammarSchema({ type: "object", properties: { x: {}, y: { $ref: "#" }, z: { not: {} } } }),
    ).toEqual({
      type: "object",
      properties: { x: ANY, y: ANY, z: ANY },
      additionalProperties: false,
    });
    expect(toGrammarSchema({ type: "object" })).toEqual({
      type: "object",
      properties: {},
      additionalProperties: true,
    });
  });

  it("splits mixed type lists into alternatives and keeps other string formats as plain strings", () => {
    expect(toGrammarSchema({ type: ["object", "null"], properties: {} })).toEqual({
      oneOf: [{ type: "null" }, { type: "object", properties: {}, additionalProperties: false }],
    });
    expect(toGrammarSchema({ type: "string", format: "email", pattern: ".+@.+" })).toEqual({
      type: "string",
    });
    expect(toGrammarSchema({ type: ["string", "integer"] })).toEqual({ type: ["string", "integer"] });
  });

  it("follows anyOf, oneOf and single-element allOf; tuples keep their prefix items", () => {
    expect(toGrammarSchema({ anyOf: [{ type: "string" }, { type: "number" }] })).toEqual({
      oneOf: [{ type: "string" }, { type: "number" }],
    });
    expect(toGrammarSchema({ allOf: [{ type: "boolean" }] })).toEqual({ type: "boolean" });
    expect(
      toGrammarSchema({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }], minItems: 2 }),
    ).toEqual({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }], minItems: 2 });
  });
});
