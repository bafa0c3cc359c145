import { existsSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { GlassloopError } from "../core/errors.js";
import {
  containedPath,
  InputTooLargeError,
  NotAFileError,
  PathOutsideError,
  readFileCapped,
} from "../core/read-caps.js";
import type { EvalResult } from "./types.js";

/** Where `glassloop eval` writes results: one directory per eval, `result.json` plus `traces/`. */
export const DEFAULT_EVAL_DIR = ".glassloop/evals";

/** The file name of a result inside its eval directory. */
export const RESULT_FILE = "result.json";

/** A result file that is missing or is not an eval result. */
export class EvalResultError extends GlassloopError {
  constructor(message: string) {
    super("eval_result_invalid", message);
  }
}

/** Writes `result` to `<dir>/result.json` (whole or not at all: written aside, then renamed). */
export function writeResult(dir: string, result: EvalResult): string {
  const path = join(dir, RESULT_FILE);
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, `${JSON.stringify(result, null, 2)}\n`);
  renameSync(aside, path);
  return path;
}

/** A result read back, and the directory its trace paths are relative to. */
export interface LoadedResult {
  result: EvalResult;
  path: string;
  dir: string;
}

/** Reads a result from its file, or from an eval directory holding `result.json`. */
export function readResult(spec: string): LoadedResult {
  let path = resolve(spec);
  if (existsSync(path) && statSync(path).isDirectory()) path = join(path, RESULT_FILE);
  let text: string;
  try {
    text = readFileCapped(path, "evalResult");
  } catch (error) {
    if (error instanceof InputTooLargeError || error instanceof NotAFileError)
      throw new EvalResultError(`Refused eval result ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    throw new EvalResultError(`No eval result at ${path}${code === "ENOENT" ? "" : ` (${code})`}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EvalResultError(`${path} is not JSON: ${(error as Error).message}`);
  }
  const r = value as Partial<EvalResult> | null;
  if (r === null || typeof r !== "object" || r.format !== "glassloop-eval" || !Array.isArray(r.cases)) {
    throw new EvalResultError(`${path} is not a glassloop eval result (no "format": "glassloop-eval")`);
  }
  if (typeof r.version !== "number" || r.version > 1) {
    throw new EvalResultError(
      `${path} is eval result v${String(r.version)}, newer than this glassloop reads (v1)`,
    );
  }
  return { result: value as EvalResult, path, dir: dirname(path) };
}

/** One line of the eval list. */
export interface EvalListing {
  id: string;
  name: string;
  startedAt: number;
  model?: string;
  passRate: number;
  trials: number;
  stopped?: string;
  path: string;
}

/**
 * The results in `dir` (each `<dir>/<eval>/result.json`), newest first. Unreadable or malformed
 * ones are skipped, each with a note in `skipped`: one foreign or broken file must not take the
 * viewer's run and eval lists down with it (they answered 500).
 */
export function listResults(dir: string = DEFAULT_EVAL_DIR): {
  evals: EvalListing[];
  loaded: LoadedResult[];
  skipped: { path: string; reason: string }[];
} {
  const full = resolve(dir);
  const skipped: { path: string; reason: string }[] = [];
  if (!existsSync(full)) return { evals: [], loaded: [], skipped };
  const loaded: LoadedResult[] = [];
  // One eval's own directory (`eval --out dir`) lists that eval; else each folder holding a result.
  const own = existsSync(join(full, RESULT_FILE)) ? [""] : readdirSync(full);
  for (const name of own) {
    const path = join(full, name, RESULT_FILE);
    if (!existsSync(path)) continue;
    try {
      const one = readResult(path);
      const problem = listingProblem(one.result);
      if (problem === undefined) loaded.push(one);
      else skipped.push({ path, reason: `not listed: ${problem}` });
    } catch (error) {
      // A half-written or foreign file is not an eval to list.
      skipped.push({ path, reason: `not listed: ${(error as Error).message}` });
    }
  }
  loaded.sort((a, b) => b.result.startedAt - a.result.startedAt);
  const evals = loaded.map(({ result, path }) => ({
    id: result.id,
    name: result.name,
    startedAt: result.startedAt,
    ...(result.model && { model: result.model }),
    passRate: result.summary.passRate.value,
    trials: result.summary.trials,
    ...(result.stopped && { stopped: result.stopped }),
    path,
  }));
  return { evals, loaded, skipped };
}

/** What the lists read of a result that this one lacks, if anything (the file is a stranger's input). */
function listingProblem(result: EvalResult): string | undefined {
  const r = result as unknown as Record<string, unknown>;
  if (typeof r.id !== "string" || typeof r.name !== "string") return "no id or name";
  if (typeof r.startedAt !== "number" || !Number.isFinite(r.startedAt)) return "no startedAt";
  const summary = r.summary as { passRate?: { value?: unknown }; trials?: unknown } | undefined;
  if (typeof summary?.passRate?.value !== "number" || typeof summary.trials !== "number") return "no summary";
  for (const c of result.cases as unknown[]) {
    const trials = (c as { trials?: unknown } | null)?.trials;
    if (!Array.isArray(trials) || trials.some((t) => typeof t !== "object" || t === null))
      return "a case without a list of trials";
  }
  return undefined;
}

/** Every trace file the results in `dir` point at (so the viewer can open each trial's run). */
export function resultTraceFiles(loaded: readonly LoadedResult[]): string[] {
  const files: string[] = [];
  for (const { result, dir } of loaded) {
    for (const c of result.cases) {
      for (const t of c.trials) {
        for (const f of [t.trace, t.judgeTrace]) {
          // A result file is input like any other: its paths must stay inside its own directory.
          const path = f === undefined ? undefined : traceInRecording(dir, f);
          if (path?.endsWith(".jsonl")) files.push(path);
        }
      }
    }
  }
  return files.filter((f) => existsSync(f));
}

/**
 * The file a trial's `trace` or `judgeTrace` names, inside the recording's folder (core/read-caps.ts
 * contains it: `../`, absolute paths and links out are a PathOutsideError), or undefined for none.
 */
export function traceInRecording(dir: string, name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  try {
    return containedPath(dir, name, "a trace path in the recording");
  } catch (error) {
    if (error instanceof PathOutsideError) return undefined;
    throw error;
  }
}
