import { formatError } from "./failure.js";

/** What `--json` prints for an error that ended a command before it had a result of its own. */
export interface JsonError {
  status: "error";
  error: { code: string; message: string };
}

/** Whether the command line asks for `--json` (before any `--`, after which arguments are data). */
export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).includes("--json");
}

/** The one JSON object for an error: its code (`internal` for an untyped one) and its scrubbed message. */
export function jsonError(error: unknown, env: NodeJS.ProcessEnv): JsonError {
  const code =
    error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : "internal";
  return { status: "error", error: { code, message: formatError(error, env) } };
}

const DURATION_KEY = /(?:[dD]uration|[lL]atency)Ms$/;

/**
 * `value` with every duration (`durationMs`, `latencyMs`) rounded to 0.1 ms: sub-microsecond
 * digits of `performance.now()` are noise, not information, in a result meant to be read.
 */
export function roundDurations<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) =>
      typeof v === "number" && DURATION_KEY.test(key) ? Math.round(v * 10) / 10 : v,
    ),
  ) as T;
}
