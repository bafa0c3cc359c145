import type { EventSourceMessage } from "eventsource-parser";
import { readStream } from "./reply.js";

type ParserFactory = typeof import("eventsource-parser").createParser;

// Loaded on the first stream, not at import: most programs import glassloop long before they
// stream, and many never do. Kept once loaded, so later streams need no await for it.
let parserModule: ParserFactory | undefined;

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
export function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: SseHandler,
  hooks: { onChunk?: (bytes: number) => void } = {},
): Promise<boolean> {
  return readBodyEvents((onChunk) => readStream(body, onChunk), onEvent, hooks);
}

/**
 * `readEvents` over any body reader: `read` feeds the body's chunks to its callback (see
 * `WireReply.read`: returning `true` wants no more).
 */
export async function readBodyEvents(
  read: (onChunk: (chunk: Uint8Array) => boolean | undefined) => Promise<void>,
  onEvent: SseHandler,
  hooks: { onChunk?: (bytes: number) => void } = {},
): Promise<boolean> {
  let stopped = false;
  let overflow: Error | undefined;
  const createParser = parserModule ?? (await loadParser());
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
  let lastChar = "";
  const feed = (text: string) => {
    if (text === "") return;
    lastChar = text[text.length - 1] as string;
    parser.feed(text);
  };
  const { onChunk } = hooks;
  await read((chunk) => {
    onChunk?.(chunk.byteLength);
    feed(decoder.decode(chunk, { stream: true }));
    if (overflow) throw new SseFormatError(`an event was larger than ${MAX_EVENT_CHARS} characters`);
    return stopped;
  });
  if (stopped) return true;
  feed(decoder.decode());
  // Some servers end with a complete last line but no blank line after it ("data: [DONE]\n"):
  // that event is whole and is delivered. A last line without its newline was cut off, and an
  // event made of it is dropped, as the standard says.
  if (lastChar === "\n" || lastChar === "\r") parser.feed("\n");
  return stopped;
}

async function loadParser(): Promise<ParserFactory> {
  parserModule = (await import("eventsource-parser")).createParser;
  return parserModule;
}
