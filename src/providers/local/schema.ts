import type { GbnfJsonSchema } from "node-llama-cpp";
import type { JsonSchema } from "../../models/model.js";

/**
 * JSON Schema (as glassloop sends it to every provider) → the subset node-llama-cpp turns into a
 * grammar. Keywords the grammar cannot express (minimum, pattern, allOf, ...) are dropped, so the
 * grammar accepts a superset; the loop still validates every call against the tool's zod schema.
 * node-llama-cpp makes every listed property required, so optional fields are always generated.
 */
export function toGrammarSchema(schema: JsonSchema): GbnfJsonSchema {
  const defs = { ...asRecord(schema.$defs), ...asRecord(schema.definitions) };
  const converted = convert(schema, 0);
  if (Object.keys(defs).length === 0) return converted;
  const $defs: Record<string, GbnfJsonSchema> = {};
  for (const [name, def] of Object.entries(defs)) $defs[name] = convert(def, 0);
  return { ...converted, $defs } as GbnfJsonSchema;
}

const IMMUTABLE = new Set(["string", "number", "integer", "boolean", "null"]);
const FORMATS = new Set(["date-time", "time", "date"]);
const MAX_DEPTH = 64;

/** Any JSON value, for schemas that say nothing (`{}`, `true`) or that the grammar cannot follow. */
const ANY: GbnfJsonSchema = {
  oneOf: [
    { type: ["string", "number", "boolean", "null"] },
    { type: "object", additionalProperties: true },
    { type: "array" },
  ],
};

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function withDescription<T extends object>(target: T, node: Record<string, unknown>): T {
  return typeof node.description === "string" ? { ...target, description: node.description } : target;
}

function convert(input: unknown, depth: number): GbnfJsonSchema {
  if (depth > MAX_DEPTH || typeof input !== "object" || input === null) return ANY;
  const node = input as Record<string, unknown>;

  if (typeof node.$ref === "string") {
    const match = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(node.$ref);
    // A reference to the root ("#") or elsewhere cannot be named in the grammar; accept anything there.
    return match ? withDescription({ $ref: `#/$defs/${match[1]}` } as GbnfJsonSchema, node) : ANY;
  }
  if ("const" in node && isLiteral(node.const)) return withDescription({ const: node.const }, node);
  if (Array.isArray(node.enum) && node.enum.every(isLiteral)) {
    return withDescription({ enum: node.enum as (string | number | boolean | null)[] }, node);
  }
  const alternatives = (
    Array.isArray(node.anyOf) ? node.anyOf : Array.isArray(node.oneOf) ? node.oneOf : undefined
  ) as unknown[] | undefined;
  if (alternatives && alternatives.length > 0) {
    return withDescription({ oneOf: alternatives.map((alt) => convert(alt, depth + 1)) }, node);
  }
  if (Array.isArray(node.allOf) && node.allOf.length === 1) return convert(node.allOf[0], depth + 1);

  const types = Array.isArray(node.type)
    ? (node.type as unknown[])
    : node.type === undefined
      ? []
      : [node.type];
  if (types.length === 0) return node.properties !== undefined ? convertObject(node, depth) : ANY;
  if (types.length > 1) {
    const immutable = types.filter((t): t is string => typeof t === "string" && IMMUTABLE.has(t));
    const structured = types.filter((t) => t === "object" || t === "array");
    const parts: GbnfJsonSchema[] = structured.map((t) => convert({ ...node, type: t }, depth + 1));
    if (immutable.length > 0) parts.unshift(convertImmutable(node, immutable));
    return parts.length === 1 ? parts[0]! : withDescription({ oneOf: parts }, node);
  }
  const type = types[0];
  if (type === "object") return convertObject(node, depth);
  if (type === "array") return convertArray(node, depth);
  if (typeof type === "string" && IMMUTABLE.has(type)) return convertImmutable(node, [type]);
  return ANY;
}

function convertImmutable(node: Record<string, unknown>, types: string[]): GbnfJsonSchema {
  if (types.length === 1 && types[0] === "string") {
    if (typeof node.format === "string" && FORMATS.has(node.format)) {
      return withDescription({ type: "string", format: node.format as "date-time" | "time" | "date" }, node);
    }
    const out: { type: "string"; minLength?: number; maxLength?: number } = { type: "string" };
    if (typeof node.minLength === "number") out.minLength = node.minLength;
    if (typeof node.maxLength === "number") out.maxLength = node.maxLength;
    return withDescription(out, node);
  }
  const list = types as ("string" | "number" | "integer" | "boolean" | "null")[];
  return withDescription({ type: list.length === 1 ? list[0]! : list }, node);
}

function convertObject(node: Record<string, unknown>, depth: number): GbnfJsonSchema {
  const properties: Record<string, GbnfJsonSchema> = {};
  for (const [key, value] of Object.entries(asRecord(node.properties)))
    properties[key] = convert(value, depth + 1);
  const extra = node.additionalProperties;
  const additionalProperties: boolean | GbnfJsonSchema =
    extra === undefined
      ? node.properties === undefined // `{type: "object"}` alone means any object
      : typeof extra === "boolean"
        ? extra
        : convert(extra, depth + 1);
  return withDescription({ type: "object", properties, additionalProperties }, node);
}

function convertArray(node: Record<string, unknown>, depth: number): GbnfJsonSchema {
  const out: {
    type: "array";
    items?: GbnfJsonSchema;
    prefixItems?: GbnfJsonSchema[];
    minItems?: number;
    maxItems?: number;
  } = { type: "array" };
  if (Array.isArray(node.prefixItems))
    out.prefixItems = node.prefixItems.map((item) => convert(item, depth + 1));
  if (typeof node.items === "object" && node.items !== null && !Array.isArray(node.items)) {
    out.items = convert(node.items, depth + 1);
  }
  if (typeof node.minItems === "number") out.minItems = node.minItems;
  if (typeof node.maxItems === "number") out.maxItems = node.maxItems;
  return withDescription(out, node);
}

function isLiteral(value: unknown): value is string | number | boolean | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}
