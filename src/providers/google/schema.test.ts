import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GeminiSchemaError, toGeminiSchema } from "./schema.js";

describe("toGeminiSchema", () => {
  it("converts a zod tool schema: upper-case types, nullable, const as enum, oneOf as anyOf, refs inlined", () => {
    const schema = {
      type: "object",
      $schema: "https://json-schema.org/draft/2020-12/schema",
      additionalProperties: false,
      properties: {
        city: { type: "string", description: "A city", format: "email" },
        when: { type: "string", format: "date-time" },
        count: { type: ["integer", "null"], minimum: 0 },
        unit: { const: "C" },
        mode: { oneOf: [{ type: "string" }, { type: "number" }] },
        at: { $ref: "#/$defs/point" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 3 },
      },
      required: ["city"],
      $defs: { point: { type: "object", properties: { x: { type: "number" } } } },
    };
    expect(toGeminiSchema("weather", schema)).toEqual({
      type: "OBJECT",
      properties: {
        city: { type: "STRING", description: "A city (format: email)" },
        when: { type: "STRING", format: "date-time" },
        count: { type: "INTEGER", nullable: true, minimum: 0 },
        unit: { type: "STRING", enum: ["C"] },
        mode: { anyOf: [{ type: "STRING" }, { type: "NUMBER" }] },
        at: { type: "OBJECT", properties: { x: { type: "NUMBER" } } },
        tags: { type: "ARRAY", items: { type: "STRING", enum: ["a", "b"] }, maxItems: 3 },
      },
      required: ["city"],
    });
    const fromZod = z.toJSONSchema(z.object({ a: z.string().optional(), b: z.number().nullable() }));
    expect(toGeminiSchema("t", fromZod as Record<string, unknown>)).toMatchObject({
      type: "OBJECT",
      properties: { a: { type: "STRING" }, b: { type: "NUMBER", nullable: true } },
    });
  });

  it("refuses what Gemini cannot express, naming the tool and the place", () => {
    const refused: [Record<string, unknown>, RegExp][] = [
      [
        { type: "object", properties: { a: { not: { type: "string" } } } },
        /"not" \(at parameters\.properties\.a\.not\)/,
      ],
      [{ type: "object", additionalProperties: { type: "number" } }, /typed additionalProperties/],
      [{ type: "object", properties: { n: { enum: [1, 2] } } }, /enum of values that are not all strings/],
      [
        {
          $ref: "#/$defs/node",
          $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } },
        },
        /recursive \$ref/,
      ],
      [{ type: "object", properties: { a: { type: ["string", "number"] } } }, /type list/],
      [{ type: "object", if: { type: "object" } }, /"if"/],
    ];
    for (const [schema, message] of refused) {
      expect(() => toGeminiSchema("my_tool", schema)).toThrow(GeminiSchemaError);
      expect(() => toGeminiSchema("my_tool", schema)).toThrow(message);
      expect(() => toGeminiSchema("my_tool", schema)).toThrow(/Tool "my_tool"/);
    }
  });
});
