import type { z } from "zod";
import type { ContextSpec, Tool } from "../tools/tool.js";
import { formatIssues } from "./feedback.js";

function isZodSchema(spec: ContextSpec<unknown>): spec is z.ZodType {
  return typeof (spec as { safeParse?: unknown }).safeParse === "function";
}

/** A short, secret-free description of a value's type for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined (no context was given to the agent)";
  if (typeof value !== "object") return typeof value;
  const ctor = (value as { constructor?: { name?: string } }).constructor?.name;
  if (ctor && ctor !== "Object") return `an instance of ${ctor}`;
  return `a plain object with keys {${Object.keys(value).join(", ")}}`;
}

/** Whether `context` satisfies `spec`, and if not, what was expected. */
export function contextMismatch(spec: ContextSpec<unknown>, context: unknown): string | undefined {
  if (isZodSchema(spec)) {
    const parsed = spec.safeParse(context);
    if (parsed.success) return undefined;
    return `a context matching its zod schema (${formatIssues(parsed.error.issues)})`;
  }
  if (context instanceof spec) return undefined;
  return `an instance of ${spec.name || "its context class"}`;
}

/**
 * Checks the agent's hidden context against every tool's declaration, at construction time,
 * so a wiring mistake fails before any model call. Only type names reach the message, never values.
 */
export function checkContext(tools: readonly Tool<never, never, unknown>[], context: unknown): void {
  for (const t of tools) {
    if (t.context === undefined) continue;
    const expected = contextMismatch(t.context as ContextSpec<unknown>, context);
    if (expected !== undefined) {
      throw new TypeError(
        `Tool "${t.name}" requires ${expected}, but the agent's context is ${describeValue(context)}`,
      );
    }
  }
}
