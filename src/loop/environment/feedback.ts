import type { z } from "zod";
import { ToolError } from "../../core/errors.js";
import { describeFile, fileProblem } from "../../core/files.js";
import { describeImage, imageProblem } from "../../core/images.js";
import { toolContent } from "../../core/tool-content.js";
import type { ToolOutcome } from "../../core/vocabulary/outcome.js";

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

/**
 * A tool's return value as the outcome the model sees: text (cut to `maxChars`), and the images
 * and files it returned, checked (a bad one is a ToolError: an error result the model can read).
 * With `asContent` false the value is JSON text whatever its shape.
 */
export function okOutcome(value: unknown, maxChars: number, asContent = true): ToolOutcome {
  if (typeof value === "string") return { status: "ok", content: truncate(value, maxChars), value };
  const content = asContent && typeof value === "object" && value !== null ? toolContent(value) : undefined;
  if (content === undefined)
    return { status: "ok", content: truncate(serializeResult(value), maxChars), value };
  // Image and file content goes to the model as parts of the tool message; the text only names them.
  for (const image of content.images) {
    const problem = imageProblem(image);
    if (problem) throw new ToolError(`The tool returned ${problem}.`);
  }
  for (const file of content.files) {
    const problem = fileProblem(file);
    if (problem) throw new ToolError(`The tool returned ${problem}.`);
  }
  const text = [content.text, ...content.images.map(describeImage), ...content.files.map(describeFile)]
    .filter((t) => t !== "")
    .join("\n");
  const outcome: ToolOutcome = { status: "ok", content: truncate(text, maxChars), value };
  if (content.images.length > 0) outcome.images = content.images;
  if (content.files.length > 0) outcome.files = content.files;
  return outcome;
}

/** The outcome of a call that the run's stop reached before or while it ran. */
export function abortedOutcome(toolName: string): ToolOutcome {
  return { status: "aborted", content: `Tool ${toolName} was aborted: the run was stopped.` };
}

/** A tool's return value as JSON text (strings as they are), for values that are not image or file content. */
export function serializeResult(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "null";
  const json = JSON.stringify(value);
  if (json === undefined)
    throw new TypeError(`tool returned a value JSON cannot represent (${typeof value})`);
  return json;
}
