import { endsSegment, isFinal, type LogEntry } from "./log-items.js";
import type { Waker } from "./run-follow.js";
import type { RunHub } from "./run-hub.js";

/** Entries read per pull: one pull makes one chunk of bytes, so a client holds at most about this many. */
const BATCH = 64;

/** How a run's items become SSE events of one protocol. */
export interface SseEncoder {
  /** The JSON payloads for one entry, in order (`data:` lines). */
  encode(entry: LogEntry): readonly unknown[];
  /** Sent once after the last entry (e.g. `[DONE]`), if any. */
  done?: string;
}

/** Options of one SSE response over a run's log. */
export interface RunStreamOptions {
  hub: RunHub;
  runId: string;
  /** Start after this sequence number (-1: from the first item). */
  after: number;
  encoder: SseEncoder;
  /** A comment line this often while nothing happens, so proxies keep the connection (ms). */
  keepAliveMs: number;
  /** Close after this long with no item (ms); the run goes on. */
  idleMs: number;
  /** Counts bytes handed to the runtime for this response (bench and tests: per-client memory). */
  onBytes?: (bytes: number) => void;
  /** Told when the stream opens (+1) and when it ends or is cancelled (-1). */
  onStream?: (delta: 1 | -1) => void;
}

const encoder = new TextEncoder();

/**
 * A pull-based SSE body over a run's items: nothing is read until the client's connection asks
 * for more, so a client that stops reading stops the reads (the server holds its cursor, not its
 * backlog), and one that disconnects leaves the run running. Each entry's last event carries
 * `id: <runId>/<seq>` for Last-Event-ID.
 */
export function runEventStream(options: RunStreamOptions): ReadableStream<Uint8Array> {
  const { hub, runId, encoder: protocol } = options;
  let after = options.after;
  let ended = false;
  let cancelled = false;
  // Idle is time since the last item sent (keep-alive comments do not count).
  let idleSince = Date.now();
  // Ends the wait in progress when the client goes away.
  const waker: Waker = {};
  let open = true;
  options.onStream?.(1);
  const finish = () => {
    if (!open) return;
    open = false;
    options.onStream?.(-1);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (!cancelled) {
          const { entries, live } = await hub.read(runId, after, BATCH);
          if (entries.length > 0) {
            idleSince = Date.now();
            let text = "";
            for (const entry of entries) {
              text += frame(runId, entry, protocol.encode(entry));
              after = entry.seq;
              if (isFinal(entry.item)) ended = true;
            }
            const last = entries.at(-1) as LogEntry;
            // A pause ends this response unless more items already follow it (a replay).
            if (!ended && !live && endsSegment(last.item)) {
              const more = await hub.read(runId, after, 1);
              if (more.entries.length === 0) ended = true;
            }
            if (ended) {
              // The last item is out: the response ends once the run's end is recorded (when driven here).
              await hub.finished(runId);
              if (protocol.done) text += `data: ${protocol.done}\n\n`;
            }
            send(controller, text);
            if (ended) {
              controller.close();
              finish();
            }
            return;
          }
          if (!live) {
            // Nothing more will come from here (the run ended, paused, or is driven nowhere).
            await hub.finished(runId);
            if (protocol.done) send(controller, `data: ${protocol.done}\n\n`);
            controller.close();
            finish();
            return;
          }
          const waited = Date.now() - idleSince;
          // A draining process ends the response without the protocol's end: the client reconnects
          // (to another process, with its Last-Event-ID) and reads on from where it stopped.
          if (waited >= options.idleMs || (hub.draining && !hub.get(runId))) {
            controller.close();
            finish();
            return;
          }
          const timedOut = await hub.wait(
            runId,
            after,
            Math.min(options.keepAliveMs, options.idleMs - waited),
            waker,
          );
          if (timedOut && !cancelled && Date.now() - idleSince < options.idleMs) {
            send(controller, ": keep-alive\n\n");
            return;
          }
        }
      },
      cancel() {
        cancelled = true;
        waker.wake?.();
        finish();
      },
    },
    { highWaterMark: 1 },
  );

  function send(controller: ReadableStreamDefaultController<Uint8Array>, text: string): void {
    const bytes = encoder.encode(text);
    options.onBytes?.(bytes.byteLength);
    controller.enqueue(bytes);
  }
}

/** The SSE text of one entry: its events, the last one with the entry's id. */
export function frame(runId: string, entry: LogEntry, payloads: readonly unknown[]): string {
  let text = "";
  for (const [i, payload] of payloads.entries()) {
    if (i === payloads.length - 1) text += `id: ${runId}/${entry.seq}\n`;
    text += `data: ${JSON.stringify(payload)}\n\n`;
  }
  return text;
}

/** Parses a Last-Event-ID (`<runId>/<seq>`); undefined when it is not one. */
export function parseEventId(value: string | null | undefined): { runId: string; seq: number } | undefined {
  if (!value) return undefined;
  const slash = value.lastIndexOf("/");
  if (slash <= 0) return undefined;
  const seq = Number(value.slice(slash + 1));
  if (!Number.isSafeInteger(seq) || seq < -1) return undefined;
  return { runId: value.slice(0, slash), seq };
}
