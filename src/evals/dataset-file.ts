import { basename, extname } from "node:path";
import { isMap, isSeq, LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { InputTooLargeError, NotAFileError, readFileCapped, tooLargeReason } from "../core/read-caps.js";
import { GlassloopError } from "../index.js";
import { dataset } from "./dataset.js";
import type { Dataset, EvalCase } from "./types.js";

/** A dataset file that cannot be used: the file, the line and the field say where. */
export class DatasetError extends GlassloopError {
  constructor(
    readonly file: string,
    /** 1-based line of the problem (0 when the file could not be read at all). */
    readonly line: number,
    /** The field's path inside the case, e.g. `input` or `limits.maxSteps`. */
    readonly field: string | undefined,
    readonly problem: string,
  ) {
    super("dataset_invalid", `${file}${line > 0 ? `:${line}` : ""}: ${field ? `${field}: ` : ""}${problem}`);
  }
}

const limitsSchema = z
  .object({
    maxSteps: z.number().int().nonnegative(),
    maxToolCalls: z.number().int().nonnegative(),
    maxTokens: z.number().nonnegative(),
    maxCostUsd: z.number().nonnegative(),
    timeoutMs: z.number().nonnegative(),
    maxRetries: z.number().int().nonnegative(),
  })
  .partial()
  .strict();

/** The shape of one case in a JSONL or YAML file. */
export const caseSchema = z
  .object({
    id: z.string().min(1).optional(),
    input: z.string(),
    expected: z.unknown().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    limits: limitsSchema.optional(),
  })
  .strict();

/**
 * Reads a dataset from a `.jsonl` file (one case per line) or a `.yaml`/`.yml` file (a list of
 * cases, or `{ name, cases }`). Every case is validated; the first bad one is a `DatasetError`
 * naming the file, the line and the field.
 */
export function loadDataset(path: string): Dataset {
  let text: string;
  try {
    text = readFileCapped(path, "dataset");
  } catch (error) {
    if (error instanceof InputTooLargeError)
      throw new DatasetError(path, 0, undefined, tooLargeReason("dataset", error.limitBytes));
    if (error instanceof NotAFileError) throw new DatasetError(path, 0, undefined, error.why);
    const code = (error as NodeJS.ErrnoException).code;
    throw new DatasetError(path, 0, undefined, code === "ENOENT" ? "no such file" : `cannot read: ${code}`);
  }
  const ext = extname(path).toLowerCase();
  const name = basename(path, ext);
  if (ext === ".jsonl" || ext === ".ndjson") return parseJsonl(text, path, name);
  if (ext === ".yaml" || ext === ".yml") return parseYaml(text, path, name);
  throw new DatasetError(path, 0, undefined, `unknown dataset format "${ext}" (use .jsonl, .yaml or .yml)`);
}

/** Parses JSONL dataset text; `file` names it in errors. */
export function parseJsonl(text: string, file: string, name: string): Dataset {
  const cases: EvalCase[] = [];
  const lines: number[] = [];
  for (const [i, raw] of text.split("\n").entries()) {
    if (raw.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new DatasetError(file, i + 1, undefined, `not JSON: ${(error as Error).message}`);
    }
    cases.push(checkCase(value, (field) => ({ line: i + 1, field }), file));
    lines.push(i + 1);
  }
  return withIds(name, cases, file, (index) => lines[index] ?? 0);
}

/** Parses YAML dataset text; `file` names it in errors. */
export function parseYaml(text: string, file: string, name: string): Dataset {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0].line ?? counter.linePos(first.pos[0]).line;
    throw new DatasetError(file, line, undefined, `not YAML: ${first.message.split("\n")[0]}`);
  }
  const root = doc.contents;
  const listPath: (string | number)[] = isMap(root) ? ["cases"] : [];
  const list = listPath.length > 0 ? doc.getIn(listPath, true) : root;
  if (!isSeq(list)) {
    throw new DatasetError(file, 1, undefined, "expected a list of cases, or a map with a `cases` list");
  }
  const lineOf = (path: (string | number)[]) => {
    for (let end = path.length; end >= 0; end--) {
      const node = doc.getIn([...listPath, ...path.slice(0, end)], true) as
        | { range?: [number, number] }
        | undefined;
      if (node?.range) return counter.linePos(node.range[0]).line;
    }
    return 1;
  };
  const values = resolvedList(doc, listPath.length > 0, file);
  const cases = values.map((value, index) =>
    checkCase(value, (field, path) => ({ line: lineOf([index, ...path]), field }), file),
  );
  const named = isMap(root) ? doc.get("name") : undefined;
  return withIds(typeof named === "string" ? named : name, cases, file, (index) => lineOf([index]));
}

/**
 * Aliases (`*name`) resolve to what they point at, up to MAX_ALIAS_EXPANSION of them: a file is
 * untrusted input, and a few nested aliases can otherwise expand into gigabytes ("billion laughs").
 */
export const MAX_ALIAS_EXPANSION = 1000;

function resolvedList(doc: ReturnType<typeof parseDocument>, inCases: boolean, file: string): unknown[] {
  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: MAX_ALIAS_EXPANSION });
  } catch (error) {
    throw new DatasetError(
      file,
      0,
      undefined,
      `its YAML aliases expand too far (${(error as Error).message.split("\n")[0]}); write the cases out`,
    );
  }
  return (inCases ? (js as { cases: unknown[] }).cases : js) as unknown[];
}

function checkCase(
  value: unknown,
  where: (
    field: string | undefined,
    path: (string | number)[],
  ) => { line: number; field: string | undefined },
  file: string,
): EvalCase {
  const parsed = caseSchema.safeParse(value);
  if (parsed.success) return parsed.data as EvalCase;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  let path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
  let problem = issue.message;
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] as string;
    path = [...path, key];
    problem = `unknown field (a case has id, input, expected, metadata, limits)`;
  } else if (issue.code === "invalid_type" && path.length > 0 && isMissing(value, path)) {
    problem = `missing (${issue.message})`;
  }
  const field = path.length > 0 ? path.join(".") : undefined;
  const { line } = where(field, path);
  return throwAt(file, line, field, problem);
}

function isMissing(value: unknown, path: (string | number)[]): boolean {
  let at: unknown = value;
  for (const key of path) {
    if (at === null || typeof at !== "object") return true;
    at = (at as Record<string | number, unknown>)[key];
  }
  return at === undefined;
}

function throwAt(file: string, line: number, field: string | undefined, problem: string): never {
  throw new DatasetError(file, line, field, problem);
}

function withIds(name: string, cases: EvalCase[], file: string, lineOf: (index: number) => number): Dataset {
  const seen = new Map<string, number>();
  for (const [i, c] of cases.entries()) {
    if (c.id === undefined) continue;
    const before = seen.get(c.id);
    if (before !== undefined) {
      throw new DatasetError(file, lineOf(i), "id", `"${c.id}" is also the id of case ${before + 1}`);
    }
    seen.set(c.id, i);
  }
  return dataset(name, cases);
}
