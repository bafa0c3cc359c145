/**
 * A client of `glassloop serve` processes for the multi-process tests: start a chat turn, read
 * its UI message stream (SSE) until a condition or its end, reconnect with Last-Event-ID, and
 * take the event ids apart.
 */
import { parseSse } from "../serve/harness.js";

/** One parsed SSE event of a response. */
export type SseEvent = { id?: string; data: string };

/** A stream being read: what came so far, and the way to read on. */
export interface OpenStream {
  reader: ReadableStreamDefaultReader<Uint8Array>;
  text: string;
  runId: string;
}

/** Starts a turn of `agent` on `chatId` at `base` and returns its stream, unread. */
export async function startTurn(
  base: string,
  token: string,
  chatId: string,
  agent = "slow",
): Promise<OpenStream> {
  const res = await fetch(`${base}api/chat`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      id: chatId,
      agent,
      messages: [{ role: "user", parts: [{ type: "text", text: "go" }] }],
    }),
  });
  if (res.status !== 200) throw new Error(`POST /api/chat answered ${res.status}: ${await res.text()}`);
  return {
    reader: (res.body as ReadableStream<Uint8Array>).getReader(),
    text: "",
    runId: res.headers.get("x-glassloop-run-id") as string,
  };
}

/** The complete events read so far (a half-received event is left out). */
export function eventsOf(stream: OpenStream): SseEvent[] {
  return parseSse(stream.text.slice(0, stream.text.lastIndexOf("\n\n") + 2));
}

/** Reads until at least `n` text deltas have come. */
export async function readDeltas(stream: OpenStream, n: number): Promise<void> {
  const decoder = new TextDecoder();
  while (eventsOf(stream).filter((e) => e.data.includes('"text-delta"')).length < n) {
    const { value, done } = await stream.reader.read();
    if (done) throw new Error("the stream ended before enough text came");
    stream.text += decoder.decode(value, { stream: true });
  }
}

/** Reads to the end of the response (the server closed it, or the connection broke). */
export async function readToEnd(stream: OpenStream): Promise<SseEvent[]> {
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await stream.reader.read().catch(() => ({ value: undefined, done: true }));
    if (done) break;
    stream.text += decoder.decode(value, { stream: true });
  }
  return eventsOf(stream);
}

/** A run's stream from `base`, whole or after `lastEventId`, read to its end (through `via`: a handler's fetch). */
export async function readRun(
  base: string,
  token: string,
  runId: string,
  lastEventId?: string,
  via: typeof fetch = fetch,
): Promise<SseEvent[]> {
  const res = await via(`${base}api/runs/${runId}/stream`, {
    headers: {
      authorization: `Bearer ${token}`,
      ...(lastEventId !== undefined && { "last-event-id": lastEventId }),
    },
  });
  if (res.status !== 200) throw new Error(`GET the run's stream answered ${res.status}: ${await res.text()}`);
  return parseSse(await res.text());
}

/** The ids of events, in order. */
export function idsOf(events: readonly SseEvent[]): string[] {
  return events.flatMap((e) => (e.id === undefined ? [] : [e.id]));
}

/** The UI message chunks of events (the `[DONE]` line left out). */
export function chunksOf(
  events: readonly SseEvent[],
): { type: string; delta?: string; messageMetadata?: { status?: string } }[] {
  return events.filter((e) => e.data.startsWith("{")).map((e) => JSON.parse(e.data));
}

/** The text the deltas of events spell. */
export function textOf(events: readonly SseEvent[]): string {
  return chunksOf(events)
    .filter((c) => c.type === "text-delta")
    .map((c) => c.delta)
    .join("");
}
