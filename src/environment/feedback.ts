import type { z } from "zod";

/** Zod issues as one line the model can act on: `celsius: Too big: expected number to be <=100`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
}

/** Text cut to `max` characters with a marker saying how much was cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.length - max;
  return `${text.slice(0, max)}\n[truncated: ${cut.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters cut]`;
}

/** A tool's return value as the text the model sees. */
export function serializeResult(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "null";
  const json = JSON.stringify(value);
  if (json === undefined)
    throw new TypeError(`tool returned a value JSON cannot represent (${typeof value})`);
  return json;
}
