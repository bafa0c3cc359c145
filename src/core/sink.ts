/**
 * The one redaction point of everything that leaves the process. A *sink* is a place values go
 * out through: the terminal, a trace file, an eval's `result.json`, a store's tables, a DBOS step's
 * recorded output, the scale-out event log. Every sink is made with `redactingSink`, so its writer
 * only ever receives values the `Redactor` has scrubbed (the environment's secrets, the caller's,
 * every credential shape): a new sink gets redaction from the way it is made, with no code of its own.
 */
import { type RedactionOptions, Redactor } from "./redact.js";

/** What scrubs a value on its way out: the library's `Redactor` has this shape. */
export interface Scrubber {
  /** Scrubs one string. */
  text(value: string): string;
  /** A deep copy of `value` with every secret scrubbed and credential-named keys blanked. */
  value<T>(value: T): T;
}

/** A place values leave the process through, written only with scrubbed values. */
export interface Sink<T, R = void> {
  /** What the sink is, for errors and the docs: `terminal`, `trace`, `eval result`, `postgres`, … */
  readonly name: string;
  /** Scrubs `value`, then hands the scrubbed copy to the sink's writer. */
  write(value: T): R;
}

/**
 * A sink named `name` whose `write` scrubs each value with `scrubber` before `writer` sees it.
 * Strings are scrubbed as text, anything else as a value (same shape, valid JSON).
 */
export function redactingSink<T, R = void>(
  name: string,
  scrubber: Scrubber,
  writer: (clean: T) => R,
): Sink<T, R> {
  return {
    name,
    write: (value: T) =>
      writer(typeof value === "string" ? (scrubber.text(value) as T) : scrubber.value(value)),
  };
}

/**
 * A sink whose writer gets JSON text: `redactor.stringify(value)`, scrubbed while it is serialized
 * (no copy of the value first), for sinks that write one JSON record per value (traces).
 */
export function redactingJsonSink<T, R = void>(
  name: string,
  redactor: Redactor,
  writer: (json: string) => R,
): Sink<T, R> {
  return { name, write: (value: T) => writer(redactor.stringify(value)) };
}

// One redactor per environment object: its secrets are gathered once, not on every write.
const byEnv = new WeakMap<object, Redactor>();

/**
 * The scrubber of sinks that belong to a process with environment `env` (default `process.env`):
 * its credential-named variables, the credentials inside its URLs, and every credential shape.
 * With `options` (extra secrets, the hidden context), a new one is made each call.
 */
export function scrubberFor(env: NodeJS.ProcessEnv = process.env, options?: RedactionOptions): Redactor {
  if (options !== undefined) return new Redactor({ ...options, env: options.env ?? env });
  let redactor = byEnv.get(env);
  if (!redactor) {
    redactor = new Redactor({ env });
    byEnv.set(env, redactor);
  }
  return redactor;
}
