import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import type { JsonSchema } from "../models/model.js";

/**
 * The JSON Schema the model sees for a zod input schema: the *input* side (what the model must
 * send, so defaults make fields optional), objects closed with `additionalProperties: false`,
 * descriptions from `.describe()`, and no `$schema` noise in every request.
 */
export function toolParameters(schema: z.ZodType, toolName: string): JsonSchema {
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) as JsonSchema;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `Tool "${toolName}": its input schema cannot be expressed as JSON Schema (${detail})`,
    );
  }
  if (json.type !== "object") {
    throw new ConfigError(
      `Tool "${toolName}": input must be a z.object(...) schema (tool arguments are a JSON object), got type ${JSON.stringify(json.type)}`,
    );
  }
  delete json.$schema;
  closeObjects(json);
  return json;
}

function closeObjects(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) closeObjects(item);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.type === "object" && record.properties !== undefined && !("additionalProperties" in record)) {
    record.additionalProperties = false;
  }
  for (const value of Object.values(record)) closeObjects(value);
}
