import { EventSourceParserStream } from "eventsource-parser/stream";
import type { UiChunk } from "./ui-stream.js";

/** One event of a UI message stream: the chunk, and the SSE id the server gave it (for resuming). */
export interface StreamEvent {
  id: string | undefined;
  chunk: UiChunk;
}

/**
 * Reads the SSE framing of a UI message stream (eventsource-parser does the framing; it is already
 * glassloop's dependency) and yields its chunks until `[DONE]` or the end of the body. Data that is
 * not a JSON object with a string `type` becomes an `error` chunk: shown, never executed.
 */
export async function* readUiStream(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
): AsyncGenerator<StreamEvent> {
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (value.data === "[DONE]") return;
      yield { id: value.id, chunk: parseChunk(value.data) };
    }
  } finally {
    // Stopping early (the stop button, a new chat) closes the connection rather than leaving it open.
    await reader.cancel().catch(() => {});
  }
}

function parseChunk(data: string): UiChunk {
  try {
    const parsed: unknown = JSON.parse(data);
    if (
      parsed !== null &&
      typeof parsed === "object" &&
      typeof (parsed as { type?: unknown }).type === "string"
    )
      return parsed as UiChunk;
  } catch {
    // Falls through to the error chunk below.
  }
  return { type: "error", errorText: `Unreadable stream event: ${data.slice(0, 200)}` };
}
