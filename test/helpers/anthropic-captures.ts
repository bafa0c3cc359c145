import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The captured real traffic (read its NOTICE.md); `shared/` lies beside the checkout. */
// A verbatim copy of ../shared/fixtures/captures (see its NOTICE.md), so a clean clone tests alone.
export const CAPTURES_DIR = fileURLToPath(new URL("../fixtures/captures/", import.meta.url));

/** Names (without extension) of the vercel-ai Anthropic stream captures. */
export function anthropicStreamCaptures(): string[] {
  return readdirSync(`${CAPTURES_DIR}vercel-ai`)
    .filter((f) => f.startsWith("anthropic--") && f.endsWith(".chunks.txt"))
    .map((f) => f.slice(0, -".chunks.txt".length))
    .sort();
}

/** Names (without extension) of the vercel-ai Anthropic non-streaming captures. */
export function anthropicJsonCaptures(): string[] {
  return readdirSync(`${CAPTURES_DIR}vercel-ai`)
    .filter((f) => f.startsWith("anthropic--") && f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();
}

/** The parsed `data:` payloads of a `.chunks.txt` capture, in order. */
export function captureEvents(name: string): unknown[] {
  return captureLines(name).map((line) => JSON.parse(line) as unknown);
}

/** A `.chunks.txt` capture as the SSE body Anthropic sent (event names restored from each `type`). */
export function captureSse(name: string): string {
  return captureLines(name)
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join("");
}

function captureLines(name: string): string[] {
  return readFileSync(`${CAPTURES_DIR}vercel-ai/${name}.chunks.txt`, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** The parsed body of a `.json` capture. */
export function captureJson(name: string): unknown {
  return JSON.parse(readFileSync(`${CAPTURES_DIR}vercel-ai/${name}.json`, "utf8"));
}
