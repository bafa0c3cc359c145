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
  const check = argumentCheck(parameters, definition.name);
  const input = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    for (const issue of check(value)) ctx.addIssue({ code: "custom", ...issue });
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

/** One thing wrong with arguments: where (`path`) and what. */
export interface ArgumentIssue {
  path: string[];
  message: string;
}

/**
 * Compiles `schema` once (RE2 patterns, 2020-12 keywords) into a check that lists what is wrong
 * with a value (nothing when it fits). A schema Ajv cannot compile is warned about and passes
 * everything: whoever wrote it still validates on their side.
 */
export function argumentCheck(schema: JsonSchema, name: string): (value: unknown) => ArgumentIssue[] {
  let validate: ((value: unknown) => boolean) & { errors?: unknown } = () => true;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    process.emitWarning(`glassloop: schema of tool "${name}" not validated locally: ${String(error)}`);
  }
  return (value) => {
    if (validate(value)) return [];
    return ((validate.errors ?? []) as { instancePath: string; message?: string; params?: object }[]).map(
      (error) => {
        const detail =
          "additionalProperty" in (error.params ?? {}) ? ` (${JSON.stringify(error.params)})` : "";
        return {
          path: error.instancePath.split("/").filter(Boolean),
          message: `${error.message ?? "invalid"}${detail}`,
        };
      },
    );
  };
}
