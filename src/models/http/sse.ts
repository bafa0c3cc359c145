import type { EventSourceMessage } from "eventsource-parser";

// Loaded on the first stream, not at import: most programs import glassloop long before they
// stream, and many never do.
let parserModule: Promise<typeof import("eventsource-parser")> | undefined;

/** One server-sent event: `event` is the `event:` field (undefined for plain `data:` events). */
export type SseEvent = EventSourceMessage;

/** Handles one event; return `true` when the protocol says the stream is complete (e.g. `[DONE]`). */
export type SseHandler = (event: SseEvent) => boolean | undefined;

/** Largest event the parser buffers before it gives up on a runaway stream (characters). */
export const MAX_EVENT_CHARS = 16 * 1024 * 1024;

/** Why an event stream could not be read to its end. */
export class SseFormatError extends Error {}

/**
 * Reads `body` as an event stream into `onEvent`. Resolves `true` when the handler declared the
 * stream complete (the rest is cancelled), `false` when the server simply ended it. `onChunk` runs
 * on every chunk that arrives with its size in bytes (the transport resets its idle timer and
 * counts the stream against its cap; what it throws ends the reading).
 */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: SseHandler,
  hooks: { onChunk?: (bytes: number) => void } = {},
): Promise<boolean> {
  let stopped = false;
  let overflow: Error | undefined;
  parserModule ??= import("eventsource-parser");
  const { createParser } = await parserModule;
  const parser = createParser({
    onEvent(event) {
      if (stopped) return;
      if (onEvent(event) === true) stopped = true;
    },
    onError(error) {
      // Unknown fields and bad `retry:` lines are ignored, as the SSE standard says; only a
      // runaway event is fatal.
      if (error.type === "max-buffer-size-exceeded") overflow = error;
    },
    maxBufferSize: MAX_EVENT_CHARS,
  });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let lastChar = "";
  const feed = (text: string) => {
    if (text === "") return;
    lastChar = text[text.length - 1] as string;
    parser.feed(text);
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      hooks.onChunk?.(value.byteLength);
      feed(decoder.decode(value, { stream: true }));
      if (overflow) throw new SseFormatError(`an event was larger than ${MAX_EVENT_CHARS} characters`);
      if (stopped) {
        await endOf(reader);
        return true;
      }
    }
    feed(decoder.decode());
    // Some servers end with a complete last line but no blank line after it ("data: [DONE]\n"):
    // that event is whole and is delivered. A last line without its newline was cut off, and an
    // event made of it is dropped, as the standard says.
    if (lastChar === "\n" || lastChar === "\r") parser.feed("\n");
    return stopped;
  } finally {
    // Completion, a handler error and an abort all release the connection; never wait on it.
    reader.cancel().catch(() => {});
  }
}

/**
 * Waits, for one turn of the event loop at most, for the body's end after the handler's end
 * marker. The marker is usually the last thing the server sent, so the end is already on its way,
 * and a body read to its end lets the fetch finish cleanly; a cancel aborts the fetch instead
 * (undici builds an AbortError and tears the request down), which cost a short stream more than
 * the rest of its handling. Whatever still arrives is dropped unread, and an error after the marker
 * changes nothing: the answer is complete.
 */
async function endOf(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let timer: NodeJS.Immediate | undefined;
  const turn = new Promise<"late">((resolve) => {
    timer = setImmediate(resolve, "late");
  });
  try {
    for (let reads = 0; reads < 2; reads++) {
      const next = await Promise.race([reader.read().catch(() => ({ done: true as const })), turn]);
      if (next === "late" || next.done) return;
    }
  } finally {
    clearImmediate(timer);
  }
}
