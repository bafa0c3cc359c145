/**
 * The `application/vnd.amazon.eventstream` framing Bedrock streams in: each message is a prelude
 * (total and header lengths, their CRC32), typed headers, a payload and a CRC32 of the whole. Every
 * checksum is verified; a message that fails one, or claims impossible lengths, ends the stream in
 * a typed error instead of being half-read.
 */
import { crc32 } from "node:zlib";
import { ProviderProtocolError } from "../../models/errors.js";

/** One decoded message: its string-valued headers (`:event-type`, `:message-type`…) and payload. */
export interface EventStreamMessage {
  headers: Record<string, string | number | boolean>;
  payload: Uint8Array;
}

/** Most bytes one message may claim (AWS's own limit is 16 MiB per message). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const PRELUDE = 12;

/** Value sizes of the fixed-size header types: booleans, byte, short, int, long, timestamp, uuid. */
const FIXED_SIZE: Record<number, number> = { 0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16 };
const MIN_MESSAGE = PRELUDE + 4;

/** Incremental decoder: feed it chunks as they arrive, take whole messages out. */
export class EventStreamDecoder {
  #buffer: Uint8Array = new Uint8Array(0);

  constructor(private readonly provider: string) {}

  /** Adds `chunk` and returns every message now complete. */
  push(chunk: Uint8Array): EventStreamMessage[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : concat(this.#buffer, chunk);
    const out: EventStreamMessage[] = [];
    while (this.#buffer.length >= PRELUDE) {
      const view = new DataView(this.#buffer.buffer, this.#buffer.byteOffset, this.#buffer.byteLength);
      const total = view.getUint32(0);
      const headersLength = view.getUint32(4);
      if (total < MIN_MESSAGE || total > MAX_MESSAGE_BYTES || headersLength > total - MIN_MESSAGE)
        throw this.#error(`an event-stream message claims ${total} bytes with ${headersLength} of headers`);
      if (crc32(this.#buffer.subarray(0, 8)) !== view.getUint32(8))
        throw this.#error("an event-stream message's prelude checksum does not match");
      if (this.#buffer.length < total) break;
      if (crc32(this.#buffer.subarray(0, total - 4)) !== view.getUint32(total - 4))
        throw this.#error("an event-stream message's checksum does not match");
      out.push({
        headers: this.#headers(this.#buffer.subarray(PRELUDE, PRELUDE + headersLength)),
        payload: this.#buffer.slice(PRELUDE + headersLength, total - 4),
      });
      this.#buffer = this.#buffer.subarray(total);
    }
    return out;
  }

  /** Throws when the stream ended inside a message. */
  end(): void {
    if (this.#buffer.length > 0) throw this.#error("the event stream ended inside a message");
  }

  #headers(bytes: Uint8Array): Record<string, string | number | boolean> {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const headers: Record<string, string | number | boolean> = {};
    const text = new TextDecoder("utf-8", { fatal: false });
    let at = 0;
    const need = (n: number) => {
      if (at + n > bytes.length) throw this.#error("an event-stream header runs past its message");
    };
    while (at < bytes.length) {
      need(1);
      const nameLength = view.getUint8(at);
      need(1 + nameLength + 1);
      const name = text.decode(bytes.subarray(at + 1, at + 1 + nameLength));
      at += 1 + nameLength;
      const type = view.getUint8(at++);
      // Types 0-9 of the format; only strings matter to Bedrock, the rest are read by their size.
      const size = FIXED_SIZE[type];
      if (size !== undefined) {
        need(size);
        if (type === 0 || type === 1) headers[name] = type === 0;
        else if (type === 2) headers[name] = view.getInt8(at);
        else if (type === 3) headers[name] = view.getInt16(at);
        else if (type === 4) headers[name] = view.getInt32(at);
        else if (type === 5 || type === 8) headers[name] = Number(view.getBigInt64(at));
        at += size;
      } else if (type === 6 || type === 7) {
        need(2);
        const length = view.getUint16(at);
        need(2 + length);
        if (type === 7) headers[name] = text.decode(bytes.subarray(at + 2, at + 2 + length));
        at += 2 + length;
      } else throw this.#error(`an event-stream header has the unknown type ${type}`);
    }
    return headers;
  }

  #error(message: string): ProviderProtocolError {
    return new ProviderProtocolError(`${this.provider}: ${message}`, { provider: this.provider });
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * Turns an event-stream body into server-sent events, one per message (`event:` the event or
 * exception type, `data:` the JSON payload), so the transport's one stream reader, with its
 * idle timeout, byte cap and retry-before-first-delta rule, reads Bedrock too.
 */
export function eventStreamToSse(provider: string): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new EventStreamDecoder(provider);
  const encoder = new TextEncoder();
  const text = new TextDecoder();
  return new TransformStream({
    transform(chunk, controller) {
      for (const message of decoder.push(chunk)) {
        const kind = message.headers[":message-type"];
        const type =
          kind === "exception"
            ? `exception:${String(message.headers[":exception-type"] ?? "unknown")}`
            : kind === "error"
              ? `exception:${String(message.headers[":error-code"] ?? "unknown")}`
              : String(message.headers[":event-type"] ?? "unknown");
        const payload =
          kind === "error"
            ? JSON.stringify({ message: String(message.headers[":error-message"] ?? "") })
            : text.decode(message.payload).replace(/\r?\n/g, " ");
        controller.enqueue(encoder.encode(`event: ${type}\ndata: ${payload || "{}"}\n\n`));
      }
    },
    flush() {
      decoder.end();
    },
  });
}
