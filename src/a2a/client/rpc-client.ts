/**
 * JSON-RPC calls to a remote A2A agent, bounded: every body is read up to a byte cap, a stream is
 * counted in bytes and events, and everything stops at the deadline's signal. What comes back is
 * checked against A2A's shapes (either spelling) before anything is used.
 */
import { readEvents } from "../../models/http/sse.js";
import { type PeerEvent, peerEventOf } from "../schemas.js";
import { A2APeerError, readBounded } from "./peer-error.js";

/** The bounds of one exchange with a peer. */
export interface PeerBounds {
  maxResponseBytes: number;
  maxStreamBytes: number;
  maxEvents: number;
}

/** One endpoint of a peer, in the spelling its card chose. */
export interface PeerEndpoint {
  url: string;
  version: "1.0" | "0.3";
  fetch: typeof fetch;
  headers: Headers;
  bounds: PeerBounds;
  /** Hides credentials in anything this client reports. */
  scrub: (text: string) => string;
}

const NAMES = {
  "1.0": { send: "SendMessage", stream: "SendStreamingMessage", get: "GetTask", cancel: "CancelTask" },
  "0.3": { send: "message/send", stream: "message/stream", get: "tasks/get", cancel: "tasks/cancel" },
} as const;

/** A method by its role, in the endpoint's spelling. */
export function methodName(endpoint: PeerEndpoint, role: keyof (typeof NAMES)["1.0"]): string {
  return NAMES[endpoint.version][role];
}

let ids = 0;

async function post(
  endpoint: PeerEndpoint,
  method: string,
  params: unknown,
  signal: AbortSignal,
  accept: string,
) {
  const headers = new Headers(endpoint.headers);
  headers.set("content-type", "application/json");
  headers.set("accept", accept);
  if (endpoint.version === "1.0") headers.set("a2a-version", "1.0");
  const response = await endpoint.fetch(endpoint.url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: ++ids, method, params }),
    signal,
    redirect: "error",
  });
  if (!response.ok) {
    const excerpt = await readBounded(response, 2048, "an error body").catch(() => "");
    throw new A2APeerError(
      "http_status",
      endpoint.scrub(
        `the A2A agent answered HTTP ${response.status} to ${method}${excerpt ? `: ${excerpt.slice(0, 300)}` : ""}`,
      ),
    );
  }
  return response;
}

function resultOf(endpoint: PeerEndpoint, method: string, body: unknown): unknown {
  if (typeof body !== "object" || body === null || (body as { jsonrpc?: unknown }).jsonrpc !== "2.0")
    throw new A2APeerError("protocol", `the answer to ${method} is not JSON-RPC 2.0`);
  const { error, result } = body as { error?: { code?: unknown; message?: unknown }; result?: unknown };
  if (error !== undefined) {
    const message = typeof error?.message === "string" ? error.message.slice(0, 500) : "no message";
    throw new A2APeerError(
      "remote_error",
      endpoint.scrub(`the A2A agent refused ${method} (${String(error?.code)}): ${message}`),
    );
  }
  return result;
}

/** Calls `method` and reads its one JSON answer. */
export async function call(
  endpoint: PeerEndpoint,
  method: string,
  params: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  const response = await post(endpoint, method, params, signal, "application/json");
  const text = await readBounded(response, endpoint.bounds.maxResponseBytes, `the answer to ${method}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new A2APeerError("protocol", `the answer to ${method} is not JSON`);
  }
  return resultOf(endpoint, method, body);
}

/** Reads a task or message result (of a send), or a task (of get or cancel). */
export function eventOf(method: string, result: unknown, bare: boolean): PeerEvent {
  const event = peerEventOf(
    bare && typeof result === "object" && result !== null && !("task" in result) && !("kind" in result)
      ? { task: result }
      : result,
  );
  if (!event) throw new A2APeerError("protocol", `the answer to ${method} is not an A2A task or message`);
  return event;
}

/**
 * Calls a streaming method and hands each event to `onEvent` until it returns true (the task
 * ended or asks for input), the stream ends, or a bound is hit.
 */
export async function stream(
  endpoint: PeerEndpoint,
  method: string,
  params: unknown,
  signal: AbortSignal,
  onEvent: (event: PeerEvent) => boolean,
): Promise<void> {
  const response = await post(endpoint, method, params, signal, "text/event-stream");
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    // A peer may answer a stream request with one JSON result: take it as the only event.
    const text = await readBounded(response, endpoint.bounds.maxResponseBytes, `the answer to ${method}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new A2APeerError("protocol", `the answer to ${method} is neither an event stream nor JSON`);
    }
    onEvent(eventOf(method, resultOf(endpoint, method, body), false));
    return;
  }
  if (!response.body) throw new A2APeerError("protocol", `the answer to ${method} has no body`);
  let bytes = 0;
  let events = 0;
  let failure: unknown;
  const { maxStreamBytes, maxEvents } = endpoint.bounds;
  await readEvents(
    response.body,
    (sse) => {
      if (failure) return true;
      try {
        if (++events > maxEvents)
          throw new A2APeerError(
            "too_many_events",
            `the stream of ${method} sent more than ${maxEvents} events`,
          );
        let body: unknown;
        try {
          body = JSON.parse(sse.data);
        } catch {
          throw new A2APeerError("protocol", `an event of ${method} is not JSON`);
        }
        const event = peerEventOf(resultOf(endpoint, method, body));
        if (!event) throw new A2APeerError("protocol", `an event of ${method} is not an A2A event`);
        return onEvent(event);
      } catch (error) {
        failure = error;
        return true;
      }
    },
    {
      onChunk: (n) => {
        bytes += n;
        if (bytes > maxStreamBytes)
          throw new A2APeerError(
            "too_large",
            `the stream of ${method} is larger than ${maxStreamBytes} bytes`,
          );
      },
    },
  );
  if (failure) throw failure;
}
