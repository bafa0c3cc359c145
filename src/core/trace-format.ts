import type { AgentEvent } from "./vocabulary/events.js";

/** The `format` field of a trace's first line. */
export const TRACE_FORMAT = "glassloop-trace";
/** The version of the trace format this code writes and reads. */
export const TRACE_VERSION = 1;

/** The first line of every trace file the writer opens: the format, its version, the run. */
export interface TraceHeader {
  type: "trace_header";
  format: typeof TRACE_FORMAT;
  version: number;
  runId: string;
  time: number;
}

/** One line of a trace: the header or an event. */
export type TraceRecord = TraceHeader | AgentEvent;

/** A line of a trace that could not be used, with why. */
export interface TraceProblem {
  line: number;
  message: string;
}

/** The records of a JSONL trace, and the lines that were not records. */
export interface ParsedTrace {
  events: AgentEvent[];
  problems: TraceProblem[];
}

/**
 * Parses JSONL trace text. A bad line is reported with its number and skipped, never fatal, so a
 * trace cut short by a crash (a torn last line) still shows everything before it.
 */
export function parseTraceText(text: string): ParsedTrace {
  const events: AgentEvent[] = [];
  const problems: TraceProblem[] = [];
  const lines = text.split("\n");
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      // JSON.parse's message quotes the line; a file that is not a trace (say /etc/passwd behind
      // a symlink) must not have its bytes echoed into an error, a listing or the viewer.
      const torn = i >= lines.length - 2 ? " (the trace was cut off while writing)" : "";
      problems.push({ line: i + 1, message: `not JSON${torn}` });
      continue;
    }
    const invalid = checkRecord(record);
    if (invalid) {
      problems.push({ line: i + 1, message: invalid });
      continue;
    }
    const r = record as TraceRecord;
    if (r.type === "trace_header") {
      if (r.format !== TRACE_FORMAT) {
        problems.push({ line: i + 1, message: "a trace header of another format; showing what it can" });
      } else if (r.version > TRACE_VERSION) {
        problems.push({
          line: i + 1,
          message: `trace format v${Number(r.version)} is newer than this glassloop reads (v${TRACE_VERSION}); showing what it can`,
        });
      }
      continue;
    }
    events.push(r);
  }
  return { events, problems };
}

function checkRecord(record: unknown): string | undefined {
  if (record === null || typeof record !== "object" || Array.isArray(record)) return "not a JSON object";
  const r = record as Record<string, unknown>;
  if (typeof r.type !== "string") return 'no "type" field';
  // The record's own strings (its type included) are never quoted: see parseTraceText.
  if (typeof r.runId !== "string") return 'a record without a "runId"';
  if (typeof r.time !== "number") return 'a record without a numeric "time"';
  return undefined;
}
