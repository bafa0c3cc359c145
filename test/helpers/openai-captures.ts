import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { CAPTURES_DIR } from "./anthropic-captures.js";
import { sseData } from "./wire-server.js";

/** A vercel-ai capture of an OpenAI-family stream, as the SSE body the server sent. */
export function openaiCaptureSse(name: string): string {
  const sse = `${CAPTURES_DIR}vercel-ai/${name}.sse`;
  try {
    return readFileSync(sse, "utf8");
  } catch {
    // `.chunks.txt` holds the `data:` payloads with prefixes and `[DONE]` stripped; put them back.
    const lines = readFileSync(`${CAPTURES_DIR}vercel-ai/${name}.chunks.txt`, "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "");
    return sseData(lines);
  }
}

/** A vercel-ai non-streaming capture's body. */
export function openaiCaptureJson(name: string): unknown {
  return JSON.parse(readFileSync(`${CAPTURES_DIR}vercel-ai/${name}.json`, "utf8"));
}

/** One recorded HTTP exchange of a pydantic-ai cassette. */
export interface CassetteInteraction {
  request: { uri: string; method: string; parsed_body: CassetteRequestBody };
  response: {
    status: { code: number };
    headers?: Record<string, string[]>;
    parsed_body?: unknown;
    body?: { string: string };
  };
}

/** The Chat Completions request body a cassette recorded. */
export interface CassetteRequestBody {
  model: string;
  stream?: boolean;
  messages: CassetteMessage[];
  tools?: {
    type: "function";
    function: { name: string; description?: string; parameters: CassetteSchema };
  }[];
  tool_choice?: unknown;
}

/** A JSON Schema of a recorded tool. */
export interface CassetteSchema {
  type: "object";
  properties: Record<string, { type: string }>;
  required?: string[];
  additionalProperties?: boolean;
}

/** A recorded Chat Completions message. */
export interface CassetteMessage {
  role: "system" | "user" | "assistant" | "tool";
  content?: string | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The interactions of `pydantic-ai/<name>.yaml`. */
export function readCassette(name: string): CassetteInteraction[] {
  const doc = parse(readFileSync(`${CAPTURES_DIR}pydantic-ai/${name}.yaml`, "utf8")) as {
    interactions: CassetteInteraction[];
  };
  return doc.interactions;
}
