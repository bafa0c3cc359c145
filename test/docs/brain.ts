/**
 * The docs examples' stand-in for a language model: a small, deterministic policy over what a
 * request offers and asks. The same policy answers through a FunctionModel (the `model` the
 * examples name) and through the OpenAI wire on 127.0.0.1 (for `"openai:gpt-4o-mini"` strings).
 */
import type { JsonSchema } from "glassloop";

/** What the policy reads from a request, whatever its wire format. */
export interface Asked {
  /** The latest user message. */
  user: string;
  /** The tools offered: name and JSON Schema of the arguments. */
  tools: { name: string; parameters: JsonSchema }[];
  /** Results of the tool calls made so far in this turn, oldest first. */
  results: string[];
}

/** One answer: call a tool, or reply with text. */
export type Move = { call: { name: string; args: Record<string, unknown> } } | { text: string };

/** The calculator's task, as the docs phrase it: "Add 200 and 10, then multiply the result by 2." */
const ADD = /add (-?\d+(?:\.\d+)?) and (-?\d+(?:\.\d+)?)/i;
const TIMES = /multiply the result by (-?\d+(?:\.\d+)?)|double it/i;

/** The policy: the calculator's arithmetic with whichever tools fit, a routing choice, a typed answer, else "ok". */
export function decide(asked: Asked): Move {
  const has = (name: string) => asked.tools.some((t) => t.name === name);
  const last = asked.results.at(-1);
  const add = ADD.exec(asked.user);
  if (add && has("add")) {
    if (asked.results.length === 0) return { call: { name: "add", args: { a: +add[1]!, b: +add[2]! } } };
    const times = TIMES.exec(asked.user);
    if (times && has("multiply") && asked.results.length === 1) {
      return { call: { name: "multiply", args: { a: Number(last), b: times[1] ? +times[1] : 2 } } };
    }
    return { text: String(last) };
  }
  if (add && has("calculator")) {
    if (asked.results.length > 0) return { text: `The result is ${last}.` };
    const times = TIMES.exec(asked.user);
    const sum = `${add[1]} + ${add[2]}`;
    return {
      call: { name: "calculator", args: { expression: times ? `(${sum}) * ${times[1] ?? 2}` : sum } },
    };
  }
  const transfer = asked.tools.find((t) => t.name.startsWith("transfer_to_"));
  if (transfer && asked.results.length === 0) {
    const math = /\d/.test(asked.user) ? asked.tools.find((t) => t.name === "transfer_to_math") : undefined;
    const chosen = math ?? transfer;
    return { call: { name: chosen.name, args: fill(chosen.parameters) as Record<string, unknown> } };
  }
  // A typed answer, or the report tool the terminal-tool examples end with.
  const final = asked.tools.find((t) => t.name === "final_result" || t.name === "finish");
  if (final) return { call: { name: final.name, args: fill(final.parameters) as Record<string, unknown> } };
  return { text: last === undefined ? "ok" : `ok: ${last}` };
}

/** A value that satisfies a simple JSON Schema: the first enum value, 42 for numbers, "ok" for strings. */
export function fill(schema: JsonSchema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ("const" in schema) return schema.const;
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (options?.[0]) return fill(options[0]);
  switch (schema.type) {
    case "number":
    case "integer":
      return 42;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set((schema.required ?? Object.keys(properties)) as string[]);
      return Object.fromEntries(
        Object.entries(properties)
          .filter(([name]) => required.has(name))
          .map(([name, property]) => [name, fill(property)]),
      );
    }
    default:
      return "ok";
  }
}
