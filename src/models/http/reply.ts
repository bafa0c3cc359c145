/**
 * What the transport needs of an HTTP answer, whichever client fetched it: the status, a header,
 * the body fed chunk by chunk. Over `node:http` the `IncomingMessage` is read directly; a web
 * `Response` (from a `fetch`) is read through its body stream.
 */
export interface WireReply {
  readonly status: number;
  /** One header's value by its lower-case name; repeated headers joined with `, `. */
  header(name: string): string | undefined;
  /** Every header, as a web `Headers` (built on first use: only errors and replies that ask need it). */
  readonly headers: Headers;
  /**
   * Feeds the body to `onChunk`, chunk by chunk, and resolves once it ended. What `onChunk` throws
   * ends the reading with that error and drops the connection. When `onChunk` returns `true` the
   * rest is not wanted: the reading waits one turn of the event loop at most for the body's end
   * (which lets the connection be reused; the end marker is usually the last thing sent), then
   * drops the connection and resolves.
   */
  read(onChunk: (chunk: Uint8Array) => boolean | undefined): Promise<void>;
  /** Drops the body unread (and with it the connection). */
  cancel(): void;
}

/** One request in flight: its answer once the headers are in, and the one way to end it early. */
export interface Exchange {
  readonly reply: Promise<WireReply>;
  /**
   * Ends the request with `reason` and drops the connection: before the headers the `reply`
   * rejects with it, after them the body's `read` does.
   */
  abort(reason: unknown): void;
}

/** Starts one POST: the URL, the final request headers, the serialized body. */
export type Exchanger = (url: string, headers: Record<string, string>, body: string) => Exchange;

/** A POST through a `fetch` (Node's global one, or the one given as the `fetch` option). */
export function exchangeWithFetch(
  fetchFn: typeof globalThis.fetch,
  url: string,
  headers: Record<string, string>,
  body: string,
): Exchange {
  const controller = new AbortController();
  const reply = fetchFn(url, {
    method: "POST",
    headers,
    body,
    signal: controller.signal,
    // Never followed: a redirect would take the key headers along wherever it points (fetch
    // drops only `authorization` across origins, not `x-api-key` or `x-goog-api-key`), and a
    // POST turned into a GET is no model call.
    redirect: "error",
  }).then(replyOfResponse);
  return { reply, abort: (reason) => controller.abort(reason) };
}

/** A web `Response` as a `WireReply`. */
export function replyOfResponse(response: Response): WireReply {
  return {
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    headers: response.headers,
    read: (onChunk) => readStream(response.body, onChunk),
    cancel: () => void response.body?.cancel().catch(() => {}),
  };
}

/** Reads a web stream as `WireReply.read` reads a body. */
export async function readStream(
  body: ReadableStream<Uint8Array> | null,
  onChunk: (chunk: Uint8Array) => boolean | undefined,
): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (onChunk(value) === true) return await endOf(reader);
    }
  } finally {
    // Completion, an error and an abort all release the connection; never wait on it.
    reader.cancel().catch(() => {});
  }
}

/**
 * Waits, for one turn of the event loop at most, for the body's end after the reader wanted no
 * more. A body read to its end lets the fetch finish cleanly; a cancel aborts the fetch instead
 * (undici builds an AbortError and tears the request down), which cost a short stream more than
 * the rest of its handling. Whatever still arrives is dropped unread, and an error after it
 * changes nothing.
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
