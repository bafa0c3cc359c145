/**
 * The one redaction point of everything that leaves the process. A *sink* is a place values go
 * out through: the terminal, a trace file, an eval's `result.json`, a store's tables, a DBOS step's
 * recorded output, the scale-out event log. Every sink is made with `redactingSink`, so its writer
 * only ever receives values the `Redactor` has scrubbed (the environment's secrets, the caller's,
 * every credential shape): a new sink gets redaction from the way it is made, with no code of its own.
 */
import { type RedactionOptions, Redactor } from "./redact.js";
import { StreamRedactor } from "./redact-stream.js";

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

/** Strings this long or longer are written by a slicing `redactingJsonSink` in slices of this many characters. */
export const LINE_SLICE_CHARS = 65_536;

/**
 * A sink whose writer gets JSON text: `redactor.stringify(value)`, scrubbed while it is serialized
 * (no copy of the value first), for sinks that write one JSON record per value (traces). With
 * `sliceLongText`, the writer gets the text in pieces (`last` on the final one): a string of
 * `LINE_SLICE_CHARS` characters or more (a long answer, in a response, the transcript and the
 * run's output) is scrubbed as one stream and written in slices, so a record holding a 20 MB text
 * never exists as one 20 MB JSON string and its UTF-8 copy. Joined, the pieces are the text
 * `stringify` makes, scrubbed the same way.
 */
export function redactingJsonSink<T, R = void>(
  name: string,
  redactor: Redactor,
  writer: (json: string, last: boolean) => R,
  options: { sliceLongText?: boolean } = {},
): Sink<T, R> {
  if (!options.sliceLongText) return { name, write: (value: T) => writer(redactor.stringify(value), true) };
  // A stand-in no serialized string can equal: a NUL and a per-process random tag.
  const tag = `\u0000glassloop-slice-${Math.random().toString(36).slice(2)}-`;
  // One list and one callback for every write (most records hold no long text: a streamed delta
  // is written per piece, and what each write allocates makes the young generation grow).
  const long: string[] = [];
  const aside = (item: string): string | undefined => {
    if (item.length < LINE_SLICE_CHARS) return undefined;
    long.push(item);
    return `${tag}${long.length - 1}`;
  };
  const piece = (text: string) => {
    writer(text, false);
  };
  return {
    name,
    write(value: T) {
      long.length = 0;
      const json = redactor.stringifyAside(value, aside);
      if (long.length === 0) return writer(json, true);
      // Taken out of the shared list: a writer that writes again must not change them.
      const texts = long.splice(0);
      let at = 0;
      for (const [i, text] of texts.entries()) {
        const mark = JSON.stringify(`${tag}${i}`);
        const found = json.indexOf(mark, at);
        piece(`${json.slice(at, found)}"`);
        writeScrubbed(text, redactor, piece);
        at = found + mark.length;
        // The closing quote goes with what follows.
        if (i + 1 < texts.length) piece('"');
        else return writer(`"${json.slice(at)}`, true);
      }
      return writer(json, true);
    },
  };
}

/** `text`, scrubbed as one stream and JSON-escaped, handed to `write` slice by slice. */
function writeScrubbed(text: string, redactor: Redactor, write: (piece: string) => void): void {
  const stream = new StreamRedactor(redactor);
  const escaped = (piece: string) => JSON.stringify(piece).slice(1, -1);
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + LINE_SLICE_CHARS);
    // A slice never ends between the two halves of a surrogate pair.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const shown = stream.push(text.slice(at, end));
    if (shown !== "") write(escaped(shown));
    at = end;
  }
  const rest = stream.end();
  if (rest !== "") write(escaped(rest));
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
