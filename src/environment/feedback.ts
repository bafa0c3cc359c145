import type { z } from "zod";
import { ToolError } from "../errors.js";
import { describeImage, imageContent, imageProblem } from "../memory/images.js";

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
  // Image content goes to the model as images (ToolMessage.images); the text only names them.
  const content = imageContent(value);
  if (content) {
    for (const image of content.images) {
      const problem = imageProblem(image);
      if (problem) throw new ToolError(`The tool returned ${problem}.`);
    }
    return [content.text, ...content.images.map(describeImage)].filter((t) => t !== "").join("\n");
  }
  const json = JSON.stringify(value);
  if (json === undefined)
    throw new TypeError(`tool returned a value JSON cannot represent (${typeof value})`);
  return json;
}
