import { existsSync, lstatSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { GlassloopError } from "../core/errors.js";
import { InputTooLargeError, NotAFileError, readFileCapped, tooLargeReason } from "../core/read-caps.js";
import { parseTraceText, type TraceProblem } from "../core/trace-format.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import { buildRunView, groupByRun } from "./build-run-view.js";
import { type RunSummary, summarize } from "./run-summary.js";
import type { RunView } from "./run-view.js";
import { DEFAULT_TRACE_DIR } from "./writer.js";

/** A trace file or run that was asked for does not exist. */
export class TraceNotFoundError extends GlassloopError {
  constructor(message: string) {
    super("trace_not_found", message);
  }
}

/** A file is not a glassloop trace (no usable event in it). */
export class TraceFormatError extends GlassloopError {
  constructor(message: string) {
    super("trace_invalid", message);
  }
}

/** The runs of one trace file. */
export interface TraceFile {
  path: string;
  runs: RunView[];
}

/** How a trace file is opened. */
export interface ReadTraceOptions {
  /** Refuse a symlink (for files found in a directory, whose names anyone with access chose). */
  noFollow?: boolean;
}

/** Reads a JSONL trace; a file may hold several runs (a shared `--trace` file). */
export function readTraceFile(path: string, options: ReadTraceOptions = {}): TraceFile {
  const { path: full, events, problems } = readEvents(path, options);
  const runs = groupByRun(events).map((run) => buildRunView(run, problems));
  return { path: full, runs };
}

/** The events of a JSONL trace, every run's, in file order (`noFollow`: a symlink is refused). */
export function readTraceEvents(path: string, options: ReadTraceOptions = {}): AgentEvent[] {
  return readEvents(path, options).events;
}

function readEvents(
  path: string,
  options: ReadTraceOptions = {},
): { path: string; events: AgentEvent[]; problems: TraceProblem[] } {
  const full = resolve(path);
  const text = readRegular(full, options.noFollow === true);
  const { events, problems } = parseTraceText(text);
  if (events.length === 0) {
    const why = problems[0] ? ` (line ${problems[0].line}: ${problems[0].message})` : " (it is empty)";
    throw new TraceFormatError(`${full} holds no glassloop trace events${why}`);
  }
  return { path: full, events, problems };
}

/**
 * The text of a trace file: a regular file under the recording cap (core/read-caps.ts), opened
 * without blocking, so a FIFO with a trace's name cannot hang the read.
 */
function readRegular(full: string, noFollow: boolean): string {
  try {
    return readFileCapped(full, "recording", { noFollow });
  } catch (error) {
    if (error instanceof NotAFileError) throw new TraceFormatError(`Refused trace ${full}: ${error.why}`);
    if (error instanceof InputTooLargeError)
      throw new TraceFormatError(`Refused trace ${full}: ${tooLargeReason("recording", error.limitBytes)}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new TraceNotFoundError(`No trace file at ${full}`);
    throw new TraceFormatError(`Cannot read trace ${full}: ${code ?? (error as Error).message}`);
  }
}

/**
 * Trace files in a directory, newest first: regular `*.jsonl` files only. A symlink (it could
 * point anywhere) or a FIFO (reading it blocks) with a trace's name is not a trace file.
 */
export function traceFiles(dir: string = DEFAULT_TRACE_DIR): string[] {
  const full = resolve(dir);
  if (!existsSync(full)) return [];
  const files: { path: string; mtime: number }[] = [];
  for (const name of readdirSync(full)) {
    if (!name.endsWith(".jsonl")) continue;
    const path = join(full, name);
    const info = lstatSync(path, { throwIfNoEntry: false });
    if (info?.isFile()) files.push({ path, mtime: info.mtimeMs });
  }
  return files.sort((a, b) => b.mtime - a.mtime).map((f) => f.path);
}

/** One line per run in the given files; unreadable files are reported, not fatal. */
export function listRuns(
  files: readonly string[],
  optionsFor: (file: string) => ReadTraceOptions = () => ({}),
): { runs: RunSummary[]; skipped: string[] } {
  const runs: RunSummary[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    try {
      for (const view of readTraceFile(file, optionsFor(file)).runs) runs.push(summarize(view, file));
    } catch (error) {
      skipped.push(`${file}: ${(error as Error).message}`);
    }
  }
  runs.sort((a, b) => b.startedAt - a.startedAt);
  return { runs, skipped };
}

/**
 * Finds a run by trace file path (`file.jsonl#runId` for one of several), by run id in the trace
 * directory, or by a unique run-id prefix.
 */
export function findRun(ref: string, dir: string = DEFAULT_TRACE_DIR): { file: string; run: RunView } {
  const hash = ref.lastIndexOf("#");
  const path = hash > 0 ? ref.slice(0, hash) : ref;
  if (path.endsWith(".jsonl") || existsSync(path)) {
    const trace = readTraceFile(path);
    const wanted = hash > 0 ? ref.slice(hash + 1) : undefined;
    const run = wanted === undefined ? trace.runs[0] : trace.runs.find((r) => r.runId === wanted);
    if (!run) throw new TraceNotFoundError(`No run ${wanted} in ${trace.path}`);
    return { file: trace.path, run };
  }
  const files = traceFiles(dir);
  const matches: { file: string; run: RunView }[] = [];
  for (const file of files) {
    let trace: TraceFile;
    try {
      trace = readTraceFile(file, { noFollow: true });
    } catch {
      continue;
    }
    for (const run of trace.runs) {
      if (run.runId === ref) return { file, run };
      if (run.runId.startsWith(ref) || run.runId.startsWith(`run_${ref}`)) matches.push({ file, run });
    }
  }
  if (matches.length === 1) return matches[0] as { file: string; run: RunView };
  if (matches.length > 1) {
    const ids = matches.map((m) => m.run.runId).join(", ");
    throw new TraceNotFoundError(`"${ref}" matches several runs (${ids}); give more of the id`);
  }
  throw new TraceNotFoundError(`No run "${ref}" in ${resolve(dir)} and no trace file by that name`);
}
