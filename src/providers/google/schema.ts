import { ConfigError } from "../../core/errors.js";
import type { JsonSchema } from "../../models/model.js";
import type { GeminiSchema } from "./wire.js";

/** A tool's JSON Schema uses something Gemini's schema subset cannot say. */
export class GeminiSchemaError extends ConfigError {}

const TYPES: Record<string, GeminiSchema["type"]> = {
  string: "STRING",
  number: "NUMBER",
  integer: "INTEGER",
  boolean: "BOOLEAN",
  array: "ARRAY",
  object: "OBJECT",
  null: "NULL",
};

// Kept as they are: Gemini's schema has the same keyword with the same meaning.
const KEPT = new Set([
  "description",
  "title",
  "nullable",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
  "pattern",
  "minimum",
  "maximum",
  "default",
  "example",
  "propertyOrdering",
]);
// Dropped: annotations that change nothing the model must produce.
const DROPPED = new Set([
  "$schema",
  "$id",
  "$comment",
  "examples",
  "readOnly",
  "writeOnly",
  "deprecated",
  "$defs",
  "definitions",
]);
// The formats Gemini understands; others move into the description instead of being lost.
const FORMATS = new Set(["enum", "date-time", "int32", "int64", "float", "double"]);

/**
 * A tool's JSON Schema in Gemini's subset: upper-case types, `["x", "null"]` as `nullable`, `const`
 * as a one-value enum, `oneOf` as `anyOf`, local `$ref`s inlined, `additionalProperties: false`
 * dropped (Gemini allows no extra properties anyway). What Gemini cannot say (`not`, conditionals,
 * pattern properties, typed maps, recursive refs, non-string enums) is a `GeminiSchemaError`
 * naming the tool and the place, never a silently looser schema.
 */
export function toGeminiSchema(tool: string, schema: JsonSchema): GeminiSchema {
  return convert(schema, { tool, root: schema, path: "parameters", refs: [] });
}

interface Where {
  tool: string;
  root: JsonSchema;
  path: string;
  refs: string[];
}

function convert(node: unknown, where: Where): GeminiSchema {
  if (node === true || (node !== null && typeof node === "object" && Object.keys(node).length === 0))
    return {};
  if (node === null || typeof node !== "object" || Array.isArray(node))
    refuse(where, "a schema that is not an object");
  const schema = node as Record<string, unknown>;
  if (typeof schema.$ref === "string")
    return convert(resolve(schema.$ref, where), { ...where, refs: [...where.refs, schema.$ref] });
  if (Array.isArray(schema.allOf)) {
    if (schema.allOf.length !== 1) refuse(where, `"allOf" with ${schema.allOf.length} schemas`);
    const { allOf: _, ...rest } = schema;
    return convert({ ...(schema.allOf[0] as object), ...rest }, where);
  }
  const out: GeminiSchema = {};
  let description = typeof schema.description === "string" ? schema.description : undefined;
  for (const [key, value] of Object.entries(schema)) {
    const at = { ...where, path: `${where.path}.${key}` };
    switch (key) {
      case "type":
        setType(out, value, at);
        break;
      case "const":
        if (typeof value !== "string") refuse(at, "a const that is not a string (Gemini enums are strings)");
        out.type ??= "STRING";
        out.enum = [value];
        break;
      case "enum":
        if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
          refuse(at, "an enum of values that are not all strings (Gemini enums are strings)");
        out.enum = value;
        out.type ??= "STRING";
        break;
      case "format":
        if (typeof value === "string" && FORMATS.has(value)) out.format = value;
        else if (typeof value === "string")
          description = description ? `${description} (format: ${value})` : `format: ${value}`;
        break;
      case "properties": {
        const props: Record<string, GeminiSchema> = {};
        for (const [name, sub] of Object.entries(value as Record<string, unknown>))
          props[name] = convert(sub, { ...where, path: `${where.path}.properties.${name}` });
        out.properties = props;
        break;
      }
      case "required":
        out.required = value;
        break;
      case "items":
        if (Array.isArray(value)) refuse(at, "tuple items");
        out.items = convert(value, at);
        break;
      case "anyOf":
      case "oneOf":
        if (!Array.isArray(value)) refuse(at, `"${key}" that is not a list`);
        out.anyOf = value.map((sub, i) => convert(sub, { ...where, path: `${at.path}[${i}]` }));
        break;
      case "additionalProperties":
        if (
          value !== false &&
          value !== true &&
          !(typeof value === "object" && value && Object.keys(value).length === 0)
        )
          refuse(at, "typed additionalProperties (a map); give the object fixed properties");
        break;
      case "description":
        break;
      default:
        if (KEPT.has(key)) out[key] = value;
        else if (!DROPPED.has(key)) refuse(at, `"${key}"`);
    }
  }
  if (description !== undefined) out.description = description;
  if (out.type === undefined && out.properties !== undefined) out.type = "OBJECT";
  return out;
}

function setType(out: GeminiSchema, value: unknown, where: Where): void {
  const types = Array.isArray(value) ? value : [value];
  const named = types.filter((t) => t !== "null");
  if (types.length > named.length) out.nullable = true;
  if (named.length !== 1) {
    if (named.length === 0) {
      out.type = "NULL";
      return;
    }
    refuse(where, `a type list (${JSON.stringify(value)}); use anyOf`);
  }
  const type = TYPES[named[0] as string];
  if (!type) refuse(where, `the type ${JSON.stringify(named[0])}`);
  out.type = type;
}

function resolve(ref: string, where: Where): unknown {
  if (where.refs.includes(ref))
    refuse(where, `a recursive $ref (${ref}): Gemini schemas cannot refer to themselves`);
  if (!ref.startsWith("#/")) refuse(where, `a $ref outside the schema (${ref})`);
  let node: unknown = where.root;
  for (const segment of ref.slice(2).split("/")) {
    const key = segment.replaceAll("~1", "/").replaceAll("~0", "~");
    node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  }
  if (node === undefined) refuse(where, `a $ref that points nowhere (${ref})`);
  return node;
}

function refuse(where: Where, what: string): never {
  throw new GeminiSchemaError(
    `Tool "${where.tool}": Gemini's function schema cannot express ${what} (at ${where.path}); simplify the tool's input schema`,
  );
}
