import { Ajv2020 } from "ajv/dist/2020.js";
import { RE2JS } from "re2js";
import { z } from "zod";
import type { JsonSchema } from "../models/model.js";
import type { AgentTool, ToolRunOptions } from "../tools/tool.js";

/**
 * `pattern` and `patternProperties` run on RE2 (re2js): linear in the input, so a server's
 * `^(a+)+$` cannot hold the process (JavaScript's backtracking RegExp can, for minutes, and no
 * timeout fires while it runs). A pattern RE2 cannot compile (lookaround, backreferences) makes
 * the schema uncompilable: it is then not validated locally (see below).
 */
const linearRegExp = Object.assign(
  (pattern: string) => {
    const compiled = RE2JS.compile(pattern);
    // Ajv keys compiled patterns by toString(): it must name the pattern, or all would share one.
    return { test: (text: string) => compiled.test(text), toString: () => `re2js:${pattern}` };
  },
  { code: "re2js" },
);

// Not strict: servers write schemas for many validators; unknown keywords and formats are not errors.
const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, code: { regExp: linearRegExp } });

/** What a tool defined by JSON Schema (no zod) needs. */
export interface JsonSchemaToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
  run: (args: Record<string, unknown>, options: ToolRunOptions<unknown>) => unknown;
}

/**
 * A tool whose arguments are described by JSON Schema, e.g. one an MCP server offers. The schema is
 * sent to the model as it is and validated with Ajv, so bad arguments become feedback before any
 * call reaches the server, with the same `path: message` shape as zod's.
 */
export function jsonSchemaTool(definition: JsonSchemaToolDefinition): AgentTool<unknown> {
  const { $schema: _ignored, ...parameters } = definition.parameters;
  if (parameters.type === undefined) parameters.type = "object";
  let validate: ((value: unknown) => boolean) & { errors?: unknown } = () => true;
  try {
    validate = ajv.compile(parameters);
  } catch (error) {
    // An uncompilable schema is the server's problem; it still validates on its side.
    process.emitWarning(
      `glassloop: schema of tool "${definition.name}" not validated locally: ${String(error)}`,
    );
  }
  const input = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    if (validate(value)) return;
    for (const error of (validate.errors ?? []) as {
      instancePath: string;
      message?: string;
      params?: object;
    }[]) {
      const path = error.instancePath.split("/").filter(Boolean);
      const detail = "additionalProperty" in (error.params ?? {}) ? ` (${JSON.stringify(error.params)})` : "";
      ctx.addIssue({ code: "custom", message: `${error.message ?? "invalid"}${detail}`, path });
    }
  });
  return Object.freeze({
    name: definition.name,
    description: definition.description,
    input,
    parameters,
    terminal: false,
    idempotent: false,
    run: (args: never, options: ToolRunOptions<unknown>) =>
      definition.run(args as Record<string, unknown>, options),
  });
}
