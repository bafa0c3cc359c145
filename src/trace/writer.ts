import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DeltaScrubber } from "../core/delta-scrub.js";
import { type RedactionOptions, Redactor } from "../core/redact.js";
import { redactingJsonSink, type Sink } from "../core/sink.js";
import { TRACE_FORMAT, TRACE_VERSION, type TraceHeader } from "../core/trace-format.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import { type DigestKinds, withoutImageBytes } from "./images.js";

/** Where traces go when no directory or file is given. */
export const DEFAULT_TRACE_DIR = ".glassloop/traces";

/** Options of a `TraceWriter`. */
export interface TraceWriterOptions {
  /** One file per run, `<dir>/<runId>.jsonl` (default `.glassloop/traces`). */
  dir?: string;
  /** Write every run to this one file instead (appending). */
  file?: string;
  /** What to scrub besides API keys and credential headers (always scrubbed). */
  redaction?: RedactionOptions;
  /** Write `text_delta` events too (default true: every event). */
  textDeltas?: boolean;
  /**
   * Image bytes (in requests and transcripts) are written as a hash and size by default; `"keep"`
   * writes them whole.
   */
  images?: "digest" | "keep";
  /** The same for documents (PDF bytes): a hash and size by default; `"keep"` writes them whole. */
  files?: "digest" | "keep";
  /** Called once per file that cannot be written; the run goes on (default: a process warning). */
  onError?: (error: Error, path: string) => void;
}

interface OpenTrace {
  fd: number | undefined;
  path: string;
}

/**
 * An event listener that writes every event of a run to a JSONL trace, redacted: pass
 * `writer.onEvent` as a run's `onEvent`. Writes are synchronous so a crash loses no event; a
 * streamed delta is written once its text is final (a couple of words later, see `DeltaScrubber`),
 * so a crash mid-stream may lose the last few.
 */
export class TraceWriter {
  readonly #options: TraceWriterOptions;
  /** Every record leaves through this sink: scrubbed, as one JSON line. */
  readonly #records: Sink<AgentEvent | TraceHeader, void>;
  /** The descriptor the record being written goes to. */
  #fd = -1;
  /** Text and reasoning deltas are scrubbed as streams: a secret split across two is caught. */
  readonly #deltas: DeltaScrubber;
  readonly #open = new Map<string, OpenTrace>();
  readonly #written: string[] = [];
  readonly #digests: DigestKinds;

  constructor(options: TraceWriterOptions = {}) {
    this.#options = options;
    const redactor = new Redactor(options.redaction);
    // A record's line is written in pieces when it holds a long text (see redactingJsonSink).
    this.#records = redactingJsonSink(
      "trace",
      redactor,
      (json, last) => {
        writeSync(this.#fd, last ? `${json}\n` : json);
      },
      { sliceLongText: true },
    );
    this.#deltas = new DeltaScrubber(redactor);
    this.#digests = { images: options.images !== "keep", files: options.files !== "keep" };
  }

  /** Paths of the trace files written so far, in the order they were opened. */
  get files(): readonly string[] {
    return this.#written;
  }

  /** The file a run's trace goes to. */
  pathOf(runId: string): string {
    if (this.#options.file !== undefined) return resolve(this.#options.file);
    return resolve(tracePath(this.#options.dir ?? DEFAULT_TRACE_DIR, runId));
  }

  /** The listener: writes `event` to its run's trace. Never throws. */
  readonly onEvent = (event: AgentEvent): void => {
    if (event.type === "text_delta" && this.#options.textDeltas === false) return;
    // model_response has each call whole (and scrubbed whole); pieces would only repeat it.
    if (event.type === "tool_call_delta") return;
    this.#deltas.push(event, this.#record);
  };

  /** Closes every trace still open (runs that never ended, e.g. on process exit). */
  close(): void {
    this.#deltas.end(this.#record);
    for (const [runId, trace] of this.#open) this.#finish(runId, trace);
  }

  /** Writes one event (a delta already scrubbed as part of its stream) to its run's trace. */
  readonly #record = (event: AgentEvent): void => {
    const trace = this.#open.get(event.runId) ?? this.#start(event);
    if (trace.fd === undefined) return;
    this.#write(trace, event);
    if (event.type === "run_end") this.#finish(event.runId, trace);
  };

  #start(event: AgentEvent): OpenTrace {
    const path = this.pathOf(event.runId);
    const trace: OpenTrace = { fd: undefined, path };
    this.#open.set(event.runId, trace);
    try {
      mkdirSync(dirname(path), { recursive: true });
      trace.fd = openSync(path, "a");
    } catch (error) {
      this.#fail(error, path);
      return trace;
    }
    if (!this.#written.includes(path)) this.#written.push(path);
    const header: TraceHeader = {
      type: "trace_header",
      format: TRACE_FORMAT,
      version: TRACE_VERSION,
      runId: event.runId,
      time: event.time,
    };
    this.#write(trace, header);
    return trace;
  }

  #write(trace: OpenTrace, record: AgentEvent | TraceHeader): void {
    if (trace.fd === undefined) return;
    try {
      const written = withoutImageBytes(record, this.#digests);
      this.#fd = trace.fd;
      this.#records.write(written);
    } catch (error) {
      this.#fail(error, trace.path);
      this.#closeFd(trace);
    }
  }

  #finish(runId: string, trace: OpenTrace): void {
    this.#closeFd(trace);
    this.#open.delete(runId);
  }

  #closeFd(trace: OpenTrace): void {
    if (trace.fd === undefined) return;
    try {
      closeSync(trace.fd);
    } catch {
      // Closing a descriptor whose writes already failed tells us nothing new.
    }
    trace.fd = undefined;
  }

  #fail(error: unknown, path: string): void {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.#options.onError) this.#options.onError(err, path);
    else process.emitWarning(`glassloop: cannot write trace ${path}: ${err.message}`);
  }
}

/** Run ids come from the loop, but a trace path must never escape its directory. */
function safeName(runId: string): string {
  return runId.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "_") || "run";
}

/** Joins a trace directory and a run id the way the writer does. */
export function tracePath(dir: string, runId: string): string {
  return join(dir, `${safeName(runId)}.jsonl`);
}
