import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * The messages sent on each SSE stream, kept so a client that lost its connection can ask for the
 * rest (`Last-Event-ID`). Bounded: the last `perStream` messages of at most `streams` streams; a
 * client that comes back later than that gets what is still kept, never unbounded memory.
 */
export class BoundedEventStore implements EventStore {
  readonly #streams = new Map<string, { id: string; message: JSONRPCMessage }[]>();
  #next = 0;

  constructor(
    private readonly perStream = 256,
    private readonly streams = 256,
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    let events = this.#streams.get(streamId);
    if (!events) {
      if (this.#streams.size >= this.streams) {
        const oldest = this.#streams.keys().next().value;
        if (oldest !== undefined) this.#streams.delete(oldest);
      }
      events = [];
      this.#streams.set(streamId, events);
    }
    // The stream id is part of the event id, so a replay knows which stream to continue.
    const id = `${streamId}_${(this.#next++).toString(36)}`;
    events.push({ id, message });
    if (events.length > this.perStream) events.shift();
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const streamId = eventId.slice(0, eventId.lastIndexOf("_"));
    return this.#streams.has(streamId) ? streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? "";
    const events = this.#streams.get(streamId) ?? [];
    const at = events.findIndex((e) => e.id === lastEventId);
    for (const event of events.slice(at + 1)) await send(event.id, event.message);
    return streamId;
  }
}
